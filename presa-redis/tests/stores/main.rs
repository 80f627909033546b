//! The conformance kit of task stores (`presa::testing`), run against the
//! in-memory store and the Redis store, and what only the Redis store must
//! do besides.

mod memory;
mod redis;
mod redis_cluster;
mod redis_sentinel;
mod redis_server;
mod redis_sessions;
mod redis_shapes;
