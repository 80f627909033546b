//! Leases: held, renewed, refused to another server, found lapsed, and
//! forgotten when the task ends.

use std::time::{Duration, SystemTime};

use super::support::{SharedTaskStore, apply, create, limits, task};
use crate::server::tasks::store::{Lease, TaskChange};

const MINUTE: Duration = Duration::from_secs(60);

/// A fixed wall-clock time, so that nothing depends on the machine's.
fn noon() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

pub(super) async fn a_lease_is_held_renewed_refused_and_taken_once_lapsed(
    stores: &dyn SharedTaskStore,
) {
    let (a, b) = (stores.open(), stores.open());
    create(&*a, task("t", None), &limits()).await;
    let now = noon();
    assert!(
        a.hold("t", &Lease::new("a", now, MINUTE), now)
            .await
            .unwrap()
    );
    assert!(
        a.hold("t", &Lease::new("a", now, MINUTE), now + MINUTE / 2)
            .await
            .unwrap()
    );
    assert!(
        !b.hold("t", &Lease::new("b", now, MINUTE), now)
            .await
            .unwrap()
    );
    assert!(b.lapsed(now, 10).await.unwrap().is_empty());

    let later = now + 2 * MINUTE;
    assert_eq!(b.lapsed(later, 10).await.unwrap(), ["t"]);
    assert!(
        b.hold("t", &Lease::new("b", later, MINUTE), later)
            .await
            .unwrap()
    );
    assert!(a.lapsed(later, 10).await.unwrap().is_empty());
    assert!(
        !a.hold("t", &Lease::new("a", later, MINUTE), later)
            .await
            .unwrap()
    );
}

pub(super) async fn a_task_that_ended_holds_no_lease(stores: &dyn SharedTaskStore) {
    let store = stores.open();
    create(&*store, task("t", None), &limits()).await;
    let now = noon();
    assert!(
        store
            .hold("t", &Lease::new("a", now, MINUTE), now)
            .await
            .unwrap()
    );
    apply(&*store, "t", TaskChange::Cancel).await;

    let later = now + 2 * MINUTE;
    assert!(store.lapsed(later, 10).await.unwrap().is_empty());
    let lease = Lease::new("a", later, MINUTE);
    assert!(!store.hold("t", &lease, later).await.unwrap());
    assert!(!store.hold("unknown", &lease, later).await.unwrap());
}
