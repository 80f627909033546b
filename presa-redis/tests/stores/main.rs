//! The store rules of [`suite`], run against the in-memory store and the
//! Redis store, and what only the Redis store must do besides.

mod memory;
mod redis;
mod redis_server;
mod suite;
