//! The Redis store in the shapes production runs it: behind a password or
//! an ACL user, over TLS (verified, with a private CA, with client
//! certificates), and over RESP2 and RESP3.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use presa::testing::shared_task_store_suite;
use presa_redis::RedisTaskStore;
use presa_runtime::server::tasks::store::{StoreError, TaskLimits, TaskRecord, TaskStore};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType, IsCa, KeyPair,
};

use crate::redis::Redis;
use crate::redis_server::{RedisServer, replies_with};

/// The ACL user's password, which nothing may show.
const SECRET: &str = "s3cret-Passw0rd";

crate::redis_tests!(
    keeps_every_rule_over_resp3,
    an_acl_user_and_a_password_work_and_are_never_shown,
    tls_with_a_private_ca_and_client_certificates,
    a_refused_certificate_is_a_clear_error_naming_the_server,
    waiting_for_a_replica_reports_only_replicated_tasks,
);

/// The kit again, with the commands in RESP3 (the URL's `protocol=resp3`);
/// the other tests speak RESP2, the default.
async fn keeps_every_rule_over_resp3(server: RedisServer) {
    let mut first = Some(server);
    let fresh = async || {
        let server = first.take().unwrap_or_else(RedisServer::start);
        Redis::at(server, |url| format!("{url}?protocol=resp3"))
    };
    shared_task_store_suite(fresh).await;
}

fn task(id: &str) -> TaskRecord {
    TaskRecord::new(id.into(), None, None, None)
}

/// Has the default user of the server on `port` need `SECRET`, and adds
/// the ACL user `probe` (after the start, whose readiness check has no
/// password).
fn with_users(port: u16) {
    let user = format!("ACL SETUSER probe on >{SECRET} ~* &* +@all");
    assert!(replies_with(port, &user, "+OK"));
    let password = format!("CONFIG SET requirepass {SECRET}");
    assert!(replies_with(port, &password, "+OK"));
}

async fn an_acl_user_and_a_password_work_and_are_never_shown(server: RedisServer) {
    let port = server.port();
    with_users(port);
    for url in [
        format!("redis://probe:{SECRET}@127.0.0.1:{port}/"),
        format!("redis://:{SECRET}@127.0.0.1:{port}/"),
    ] {
        let builder = RedisTaskStore::builder(&url);
        assert_not_shown(&format!("{builder:?}"));
        let store = builder.build().unwrap();
        assert_not_shown(&format!("{store:?}"));
        assert_not_shown(store.server());
        store.connect().await.unwrap();
        store
            .create(task("t"), &TaskLimits::default())
            .await
            .unwrap();
        assert!(store.get("t").await.unwrap().is_some());
    }
    let wrong = RedisTaskStore::builder(format!("redis://probe:not-{SECRET}@127.0.0.1:{port}/"))
        .build()
        .unwrap();
    let refused = wrong.connect().await.unwrap_err();
    assert_not_shown(&format!("{refused} {refused:?}"));
    drop(server);
    let gone = RedisTaskStore::builder(format!("redis://probe:{SECRET}@127.0.0.1:{port}/"))
        .build()
        .unwrap();
    let unreachable = gone.get("t").await.unwrap_err();
    assert_not_shown(&format!("{unreachable} {unreachable:?}"));
    let bad = RedisTaskStore::builder(format!("redis://probe:{SECRET}@127.0.0.1:notaport/"))
        .build()
        .unwrap_err();
    assert_not_shown(&format!("{bad} {bad:?}"));
}

fn assert_not_shown(text: &str) {
    assert!(!text.contains(SECRET), "the password is shown: {text}");
}

/// The folder of the certificates of the server on `port`.
fn folder(port: u16) -> PathBuf {
    std::env::temp_dir().join(format!("presa-redis-tls-{port}"))
}

fn file(port: u16, name: &str) -> String {
    folder(port).join(name).display().to_string()
}

fn read(port: u16, name: &str) -> Vec<u8> {
    std::fs::read(file(port, name)).expect("a certificate written at the server's start")
}

/// Makes a CA, and a server and a client certificate it signed, in the
/// folder of the server on `port`.
fn make_certificates(port: u16) {
    std::fs::create_dir_all(folder(port)).unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name = named("presa test CA");
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let write = |name: &str, text: String| std::fs::write(file(port, name), text).unwrap();
    for (name, names) in [
        ("server", vec!["127.0.0.1", "localhost"]),
        ("client", vec!["client"]),
    ] {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.into_iter().map(String::from).collect::<Vec<_>>())
                .unwrap();
        params.distinguished_name = named(name);
        write(
            &format!("{name}.pem"),
            params.signed_by(&key, &ca).unwrap().pem(),
        );
        write(&format!("{name}.key"), key.serialize_pem());
    }
    write("ca.pem", ca.pem());
}

/// A subject of that common name (rcgen's default is one name for all).
fn named(common_name: &str) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common_name);
    name
}

/// A TLS port, the next after the plain one (the tests' readiness
/// check; were it taken, the server exits and the start tries another
/// port), which asks clients for certificates signed by the CA when
/// `mutual`.
fn tls(port: u16, mutual: bool) -> Vec<String> {
    make_certificates(port);
    vec![
        "--tls-port".into(),
        (port + 1).to_string(),
        "--tls-cert-file".into(),
        file(port, "server.pem"),
        "--tls-key-file".into(),
        file(port, "server.key"),
        "--tls-ca-cert-file".into(),
        file(port, "ca.pem"),
        "--tls-auth-clients".into(),
        if mutual { "yes" } else { "no" }.into(),
    ]
}

async fn tls_with_a_private_ca_and_client_certificates(server: RedisServer) {
    drop(server);
    let server = RedisServer::start_with(|port| tls(port, true));
    let port = server.port();
    let url = format!("rediss://127.0.0.1:{}/", port + 1);
    let mutual = RedisTaskStore::builder(&url)
        .tls_ca(read(port, "ca.pem"))
        .tls_client_certificate(read(port, "client.pem"), read(port, "client.key"))
        .build()
        .unwrap();
    mutual.connect().await.unwrap();
    mutual
        .create(task("t"), &TaskLimits::default())
        .await
        .unwrap();
    assert!(
        mutual.watch("t").await.unwrap().is_some(),
        "pub/sub over TLS"
    );

    let anonymous = RedisTaskStore::builder(&url)
        .tls_ca(read(port, "ca.pem"))
        .build()
        .unwrap();
    let refused = anonymous.connect().await.unwrap_err();
    assert!(matches!(refused, StoreError::Backend(_)), "{refused:?}");
    let _ = std::fs::remove_dir_all(folder(port));
}

async fn a_refused_certificate_is_a_clear_error_naming_the_server(server: RedisServer) {
    drop(server);
    let server = RedisServer::start_with(|port| tls(port, false));
    let tls_port = server.port() + 1;
    let url = format!("rediss://127.0.0.1:{tls_port}/");
    let public_roots = RedisTaskStore::builder(&url).build().unwrap();
    let StoreError::Backend(message) = public_roots.connect().await.unwrap_err() else {
        panic!("a backend error");
    };
    assert!(message.contains("certificate"), "{message}");
    assert!(
        message.contains(&format!("127.0.0.1:{tls_port}")),
        "{message}"
    );

    let insecure = RedisTaskStore::builder(format!("{url}#insecure"))
        .build()
        .unwrap();
    insecure.connect().await.unwrap();
    insecure
        .create(task("t"), &TaskLimits::default())
        .await
        .unwrap();
    let _ = std::fs::remove_dir_all(folder(server.port()));
}

/// With `wait_for_replicas(1, …)`, every task reported created is on the
/// replica already; with the replica gone, creation is refused, not
/// reported done.
async fn waiting_for_a_replica_reports_only_replicated_tasks(primary: RedisServer) {
    let mut replica = RedisServer::start();
    // The replica loads the primary's data in memory, writing no file.
    let diskless = "CONFIG SET repl-diskless-load on-empty-db";
    assert!(replies_with(replica.port(), diskless, "+OK"));
    let command = format!("REPLICAOF 127.0.0.1 {}", primary.port());
    assert!(replies_with(replica.port(), &command, "OK"));
    let deadline = Instant::now() + Duration::from_secs(20);
    while !replies_with(replica.port(), "INFO replication", "master_link_status:up") {
        assert!(Instant::now() < deadline, "the replica never caught up");
        std::thread::sleep(Duration::from_millis(20));
    }
    let store = RedisTaskStore::builder(primary.url())
        .wait_for_replicas(1, Duration::from_secs(2))
        .build()
        .unwrap();
    let on_replica = RedisTaskStore::builder(replica.url()).build().unwrap();
    for n in 0..50 {
        let id = format!("t{n}");
        store
            .create(task(&id), &TaskLimits::default())
            .await
            .unwrap();
        // Read at once from the replica: `WAIT` promised it is there.
        assert!(
            on_replica.get(&id).await.unwrap().is_some(),
            "{id} not replicated"
        );
    }
    replica.stop();
    let StoreError::Backend(message) = store
        .create(task("alone"), &TaskLimits::default())
        .await
        .unwrap_err()
    else {
        panic!("a backend error");
    };
    assert!(message.contains("0 of the 1 replicas"), "{message}");
}
