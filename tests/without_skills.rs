//! A build without the `skills` feature (`cargo test -p presa-mcp
//! --no-default-features --test without_skills`): the server neither
//! advertises the Skills extension nor answers its methods, which get the
//! answer of any method the server does not know. In the default build
//! this file is empty.
#![cfg(not(feature = "skills"))]

mod common;

use common::{RawPeer, WIRES, error_code, meta};
use presa::server::Server;
use presa::wire::codes;
use serde_json::{Value, json};

fn params(mut fields: Value) -> Value {
    fields["_meta"] = meta(json!({}));
    fields
}

#[tokio::test]
async fn the_extension_is_neither_advertised_nor_served() {
    let server = Server::builder("plain", "1").build();
    for wire in WIRES {
        let mut peer = RawPeer::over(&server, wire);
        let discover = peer.request(1, "server/discover", params(json!({}))).await;
        let capabilities = &discover["result"]["capabilities"];
        assert!(capabilities.is_object(), "{discover}");
        assert!(
            capabilities["extensions"]
                .get("io.modelcontextprotocol/skills")
                .is_none(),
            "{capabilities}"
        );
        for (id, method, fields) in [
            (2, "skills/list", json!({})),
            (3, "skills/get", json!({"uri": "skill://a/SKILL.md"})),
            (4, "resources/directory/read", json!({"uri": "skill://a/"})),
        ] {
            let answer = peer.request(id, method, params(fields)).await;
            assert_eq!(
                error_code(&answer),
                codes::METHOD_NOT_FOUND,
                "{method}: {answer}"
            );
        }
    }
}
