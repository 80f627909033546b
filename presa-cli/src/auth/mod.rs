//! Authentication to HTTP servers: a bearer token ([`credentials`]), or
//! an OAuth sign-in when the server asks for one ([`sign_in`]), as the
//! client that [`identity`] says.
//!
//! The sign-in takes the redirect on a loopback port, printing the URL to
//! open, and keeps what it got (registration, tokens) in a file of its
//! own per server in the token folder ([`token_folder`]), so that the next
//! command is signed in already; `presa logout SERVER` deletes that file.
//! A bearer token is sent first, and never kept.
//!
//! Layers, bottom up: credentials, identity and token_folder, sign_in.

mod credentials;
mod identity;
mod sign_in;
mod token_folder;

pub use credentials::bearer_token;
pub use sign_in::{SignIn, http_options, logout};
