//! A presa task store on Redis: tasks shared by every server that uses one
//! Redis. This first part holds the stored form of a record and the names
//! of its keys; the store follows.
#![allow(dead_code)]

mod keys;
mod record;
