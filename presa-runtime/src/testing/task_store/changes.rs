//! How changes apply: each kind, no-ops, finished tasks, record size, and
//! two stores racing.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, json};

use super::support::{SharedTaskStore, answer, answers, apply, create, limits, requests, task};
use crate::server::tasks::store::{StoreError, TaskChange, TaskLimits, TaskRecord};
use crate::wire::{ErrorObject, InputRequest, TaskStatus};

pub(super) async fn a_created_task_reads_back_whole(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let record = TaskRecord::new(
        "t1".into(),
        Some("alice".into()),
        Some(Duration::from_secs(60)),
        Some(Duration::from_millis(20)),
    )
    .with_trace_parent(Some(
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
    ));
    create(&*store, record.clone(), &limits()).await;
    assert_eq!(*store.get("t1").await.unwrap().unwrap(), record);
    assert_eq!(*stores.open().get("t1").await.unwrap().unwrap(), record);
    assert!(store.get("unknown").await.unwrap().is_none());
}

pub(super) async fn every_change_applies_as_in_task_change(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    create(&*store, task("t", None), &limits()).await;
    let asked = apply(
        &*store,
        "t",
        TaskChange::RequestInput(requests(&["a", "b"])),
    )
    .await;
    assert_eq!(asked.status(), TaskStatus::InputRequired);
    let answered = apply(&*store, "t", TaskChange::Answer(answers(&["a", "zzz"]))).await;
    assert_eq!(answered.input_requests().keys().collect::<Vec<_>>(), ["b"]);
    assert!(answered.answers().contains_key("a") && !answered.answers().contains_key("zzz"));
    let withdrawn = apply(&*store, "t", TaskChange::Withdraw(vec!["b".into()])).await;
    assert_eq!(withdrawn.status(), TaskStatus::Working);
    let noted = apply(&*store, "t", TaskChange::StatusMessage(Some("half".into()))).await;
    assert_eq!(noted.status_message(), Some("half"));
    let result = Map::from_iter([("isError".to_owned(), json!(false))]);
    let done = apply(&*store, "t", TaskChange::Complete(result.clone())).await;
    assert_eq!((done.status(), done.version()), (TaskStatus::Completed, 5));
    assert_eq!(done.result(), Some(result));
    assert_eq!(store.get("t").await.unwrap().unwrap(), done);

    create(&*store, task("f", None), &limits()).await;
    let error = ErrorObject::new(-32603, "Internal error");
    let failed = apply(&*store, "f", TaskChange::Fail(error.clone())).await;
    assert_eq!(
        (failed.status(), failed.error().cloned()),
        (TaskStatus::Failed, Some(error))
    );
    create(&*store, task("c", None), &limits()).await;
    let cancelled = apply(&*store, "c", TaskChange::Cancel).await;
    assert_eq!(cancelled.status(), TaskStatus::Cancelled);

    let nothing = store.apply("unknown", TaskChange::Cancel, &limits()).await;
    assert_eq!(nothing.unwrap(), None);
}

pub(super) async fn a_change_that_changes_nothing_keeps_the_version(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    create(&*store, task("t", None), &limits()).await;
    let same = apply(&*store, "t", TaskChange::Answer(answers(&["never-asked"]))).await;
    assert_eq!(same.version(), 0);
    assert_eq!(store.get("t").await.unwrap().unwrap().version(), 0);
}

pub(super) async fn a_finished_task_accepts_no_change(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    create(&*store, task("t", None), &limits()).await;
    let cancelled = apply(&*store, "t", TaskChange::Cancel).await;
    for change in [
        TaskChange::Complete(Map::new()),
        TaskChange::Cancel,
        TaskChange::StatusMessage(Some("late".into())),
        TaskChange::RequestInput(requests(&["a"])),
    ] {
        assert_eq!(apply(&*store, "t", change).await, cancelled);
    }
    assert_eq!(store.get("t").await.unwrap().unwrap(), cancelled);
}

pub(super) async fn answers_past_the_record_size_are_refused(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    let small = TaskLimits {
        max_record_bytes: 2048,
        ..limits()
    };
    create(&*store, task("t", None), &small).await;
    store
        .apply("t", TaskChange::RequestInput(requests(&["a"])), &small)
        .await
        .unwrap();
    let big = [("a".to_owned(), answer(json!({"text": "x".repeat(4096)})))]
        .into_iter()
        .collect();
    let refused = store.apply("t", TaskChange::Answer(big), &small).await;
    assert!(
        matches!(refused, Err(StoreError::AnswersTooLarge(_))),
        "{refused:?}"
    );
    let waiting = store.get("t").await.unwrap().unwrap();
    assert_eq!(
        (waiting.status(), waiting.version()),
        (TaskStatus::InputRequired, 1)
    );

    let result = Map::from_iter([("text".to_owned(), json!("y".repeat(4096)))]);
    let failed = store.apply("t", TaskChange::Complete(result), &small).await;
    let failed = failed.unwrap().unwrap();
    assert_eq!(failed.status(), TaskStatus::Failed);
    assert!(failed.stored_result().is_none());
}

/// Two stores answer the same keys at once: every answer lands exactly
/// once, and every change that changed something counts one version.
pub(super) async fn racing_changes_all_land_once(stores: &dyn SharedTaskStore) {
    const KEYS: usize = 40;
    let first = stores.open();
    let second = stores.open();
    create(&*first, task("t", None), &limits()).await;
    let keys: Vec<String> = (0..KEYS).map(|i| format!("k{i:02}")).collect();
    let asked = keys
        .iter()
        .map(|k| (k.clone(), InputRequest::ListRoots))
        .collect();
    apply(&*first, "t", TaskChange::RequestInput(asked)).await;
    let mut racers = tokio::task::JoinSet::new();
    for key in &keys {
        for (n, store) in [&first, &second].into_iter().enumerate() {
            let answer = [(key.clone(), answer(json!(key)))].into_iter().collect();
            let answering = Arc::clone(store);
            racers.spawn(async move {
                answering
                    .apply("t", TaskChange::Answer(answer), &limits())
                    .await
            });
            let note = TaskChange::StatusMessage(Some(format!("{key} from store {n}")));
            let noting = Arc::clone(store);
            racers.spawn(async move { noting.apply("t", note, &limits()).await });
        }
    }
    while let Some(done) = racers.join_next().await {
        done.unwrap().unwrap().unwrap();
    }
    let end = first.get("t").await.unwrap().unwrap();
    assert_eq!(end.status(), TaskStatus::Working);
    assert_eq!(end.answers().keys().collect::<Vec<_>>(), keys);
    for key in &keys {
        assert_eq!(end.answers()[key], answer(json!(key)));
    }
    // One version for the request, one per key answered, one per note.
    assert_eq!(end.version(), 1 + KEYS as u64 + 2 * KEYS as u64);
}
