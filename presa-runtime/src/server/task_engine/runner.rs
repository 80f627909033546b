//! [`Runners`]: the tokio task that runs one handler as a task, and what
//! it needs: the store, the limits, the TTL and this server's leases.
//!
//! A runner ends the first of these ways, each dropping the handler
//! (cancellation by drop) unless the handler itself ended:
//!
//! 1. the task's TTL passed;
//! 2. another server took the task over (its lease here lapsed);
//! 3. the task ended without it (`tasks/cancel`, a failure recorded by
//!    someone else): a handler released by the end has nothing to report;
//! 4. the task of a resumable tool waits for input, and may sleep: the
//!    handler is dropped with its questions still asked, and runs again
//!    when they are answered (the rules are in the `dormant` module);
//! 5. the handler returned: its [`TaskEnd`] is recorded.
//!
//! A store that cannot be reached never leaves a task running for good:
//! the runner tries again every [`STORE_RETRY`] to follow the task while
//! the handler runs, and to record how it ended, keeping its lease all
//! the while, until the store answers or the TTL ends it.
//!
//! The handler starts at once, with no round trip to the store before it:
//! its first step runs before the runner follows the task, so one that
//! ends there needs no watch at all, and one that asks a question sends
//! it while the watch is set up. The watch is set up on the runner's own
//! tokio task, after the first step, so the answer to the call that
//! created the task does not wait for it (with Redis, a subscription).
//! The watch reads the record once it is subscribed, so a change made
//! meanwhile (a cancellation) is not missed.
//!
//! The engine starts runners for the tasks it creates and for the tasks
//! it wakes; the sweeper starts them for the resumable tasks it takes over
//! from a server that died. A task run again starts from its record
//! ([`Runners::resume`]), the same way in both cases.

use std::sync::{Arc, OnceLock, Weak};
use std::task::Poll;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::dormant::{Dormant, Wake};
use super::lease::Lease;
use super::link::TaskLink;
use super::settings::TaskSettings;
use super::store::{StoreError, TaskChange, TaskLimits, TaskRecord, TaskStore, TaskWatch};
use crate::server::request::reply::{internal_error, report_internal};
use crate::telemetry::context;
use crate::util::{BoxFuture, Charge, finished_in_place};
use crate::wire::{ErrorObject, TaskStatus};

/// Rebuilds the run of a resumable task from its record, tied to the task
/// through the link: the server's half of resuming, since only it knows
/// the tools. Gives the tool's name and the run; `None` when the record
/// keeps no call this server can run. A task taken over and a sleeping
/// task woken (the `dormant` module) are both run again through it.
pub(crate) type Resume =
    Arc<dyn Fn(&TaskRecord, TaskLink) -> Option<(String, BoxFuture<TaskEnd>)> + Send + Sync>;

/// How long a runner waits before it tries an unreachable store again.
pub(crate) const STORE_RETRY: Duration = Duration::from_secs(1);

/// How a task's handler ended.
pub(crate) enum TaskEnd {
    /// With a result (which may be an `isError` result).
    Completed(Map<String, Value>),
    /// With a JSON-RPC error.
    Failed(ErrorObject),
}

impl From<TaskEnd> for TaskChange {
    fn from(end: TaskEnd) -> Self {
        match end {
            TaskEnd::Completed(result) => TaskChange::Complete(result),
            TaskEnd::Failed(error) => TaskChange::Fail(error),
        }
    }
}

/// Everything a runner needs; cheap to clone. Every running or parked
/// task keeps a copy, so it is two pointers: the store, and the rest,
/// which never changes once the server is built.
#[derive(Clone)]
pub(crate) struct Runners {
    pub store: Arc<dyn TaskStore>,
    pub rules: Arc<RunnerRules>,
}

/// What runners share besides the store.
pub(crate) struct RunnerRules {
    pub limits: TaskLimits,
    ttl: Option<Duration>,
    max_reasks: u32,
    /// With [`TaskSettings::lease`], how this server holds leases.
    pub leases: Option<LeaseKeeper>,
    /// How the server runs a resumable task again, set once it is built.
    resume: OnceLock<Resume>,
    /// The tasks whose handler sleeps.
    pub dormant: Dormant,
}

impl Runners {
    /// Runners on `store`, with the limits, TTL and leases of `settings`.
    pub fn new(settings: &TaskSettings, store: Arc<dyn TaskStore>) -> Self {
        let rules = RunnerRules {
            limits: settings.limits,
            ttl: settings.ttl,
            max_reasks: settings.max_reasks,
            leases: settings.lease.map(LeaseKeeper::new),
            resume: OnceLock::new(),
            dormant: Dormant::default(),
        };
        Runners {
            store,
            rules: Arc::new(rules),
        }
    }

    /// Sets how the server runs a resumable task again.
    pub fn set_resume(&self, resume: Resume) {
        let _ = self.rules.resume.set(resume);
    }

    /// The same runners without a hold on the store, for the sweeper,
    /// which must end once the store is gone.
    pub fn downgrade(&self) -> WeakRunners {
        WeakRunners {
            store: Arc::downgrade(&self.store),
            rules: Arc::clone(&self.rules),
        }
    }

    /// The tie through which a handler running as task `id` asks for input.
    pub fn link(&self, id: &str) -> TaskLink {
        TaskLink::new(
            id.to_owned(),
            Arc::clone(&self.store),
            self.rules.limits,
            self.rules.max_reasks,
        )
    }

    /// Runs `run`, tied to its task through `link`, until one of the ends
    /// in the module docs. `origin` names the tool in logs; the run is
    /// traced in a `mcp.task` span with the task id, the tool and the
    /// owner. `charge` is what the run holds of the server's memory
    /// budget, given back when it ends.
    ///
    /// Its first step runs in place, on the caller's task, as a request's
    /// does on its connection: a handler that ends without waiting is
    /// recorded before the call that created its task is answered, with
    /// no tokio task and no wake-up of another thread; one that waits
    /// goes on on a tokio task of its own. (Spawned at once instead, it
    /// would wait in the caller's worker, behind whatever the caller does
    /// next: a client served in place that polls `tasks/get` straight
    /// away would hold it there.)
    ///
    /// The runner is one block that borrows what it captured: a parked
    /// task holds it, and every value moved into a nested `async fn`
    /// would be kept twice.
    pub fn spawn(
        &self,
        link: TaskLink,
        record: &TaskRecord,
        origin: String,
        run: BoxFuture<TaskEnd>,
        charge: Charge,
    ) {
        let owner = record.owner.as_deref();
        let span =
            tracing::info_span!("mcp.task", task = %link.id(), tool = %origin, subject = owner);
        // The run links to the request that created the task, on this
        // replica or another (rule 4 of `telemetry`).
        context::link_to(&span, record.trace_parent());
        let runners = self.clone();
        let runner = async move {
            let _charge = &charge;
            let id = link.id();
            let rules = &*runners.rules;
            tokio::select! {
                biased;
                () = expiry(rules.ttl) => {
                    tracing::debug!(task = id, "task expired; dropping its handler");
                }
                () = keep_lease(rules.leases.as_ref(), &*runners.store, id) => {
                    tracing::warn!(task = id, "another server took the task over; dropping its handler");
                }
                () = runners.run_to_end(&link, &origin, run) => {}
            }
        };
        let mut runner: BoxFuture<()> = Box::pin(runner.instrument(span));
        if !finished_in_place(&mut runner) {
            tokio::spawn(runner);
        }
    }

    /// Runs the handler while following the task, and records how it
    /// ended, unless the task ended first or the handler went to sleep.
    /// A handler that ends at its first step is recorded with no watch.
    ///
    /// The retrying steps before and after the handler are boxed: they
    /// are done while the handler waits, so a parked task does not keep
    /// room for them. (A block, as the runner is: an `async fn` would keep
    /// its arguments twice.)
    #[allow(
        clippy::manual_async_fn,
        reason = "an `async fn` would keep its arguments twice"
    )]
    fn run_to_end<'a>(
        &'a self,
        link: &'a TaskLink,
        origin: &'a str,
        run: BoxFuture<TaskEnd>,
    ) -> impl Future<Output = ()> + 'a {
        async move {
            let id = link.id();
            let mut run = run;
            // The handler's first step comes first: one that ends without
            // waiting needs no watch, and one that asks a question sends
            // it to the store while the watch is set up.
            if let Poll::Ready(end) = futures::poll!(&mut run) {
                link.close();
                return Box::pin(self.record(id, origin, end.into())).await;
            }
            let sleepy = self.rules.leases.is_none() && self.rules.resume.get().is_some();
            // The watch is set up beside the handler, off its way: it reads
            // the record once subscribed, so a change made meanwhile (a
            // cancellation) is seen all the same.
            let following = async {
                // Off the in-place poll: the client's answer to the call
                // that created the task need not wait for the watch to
                // be set up, and the spawned runner sets it up while that
                // answer goes out.
                tokio::task::yield_now().await;
                match Box::pin(self.watch(id)).await {
                    Some(watch) => stopped(watch, link, sleepy).await,
                    None => Stop::Ended,
                }
            };
            // The handler is dropped at the end of `select!`, before a
            // sleeping task looks at its record again.
            let outcome = tokio::select! {
                biased;
                stop = following => Err(stop),
                end = run => Ok(end),
            };
            link.close();
            match outcome {
                Ok(end) => Box::pin(self.record(id, origin, end.into())).await,
                Err(Stop::Ended) => tracing::debug!(task = id, "task ended; dropping its handler"),
                Err(Stop::Asleep(record)) => Box::pin(self.sleep(&record)).await,
            }
        }
    }

    /// Puts the task of `record`, whose handler was just dropped, to
    /// sleep; then wakes it if its answers came meanwhile (rule 3 of the
    /// `dormant` module).
    async fn sleep(&self, record: &TaskRecord) {
        tracing::debug!(
            task = record.id(),
            "task waits for input; its handler sleeps"
        );
        self.rules.dormant.sleep(record);
        loop {
            match self.store.get(&record.id).await {
                Ok(Some(now)) => return self.wake(&now).await,
                // Expired: the next sweep forgets it.
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(task = record.id(), error = %e, "cannot read the sleeping task; trying again");
                    tokio::time::sleep(STORE_RETRY).await;
                }
            }
        }
    }

    /// Runs the handler of a sleeping task again once `record`, as the
    /// task now is, has nothing outstanding; forgets a task that ended.
    pub async fn wake(&self, record: &TaskRecord) {
        if self.rules.dormant.wake(record) == Wake::Nothing {
            return;
        }
        tracing::debug!(
            task = record.id(),
            "task answered; running its handler again"
        );
        if !self.resume(record) {
            let cause = format!("task {}: its handler could not be run again", record.id);
            let change = TaskChange::Fail(internal_error("(task wake)", &cause));
            if let Err(e) = self
                .store
                .apply(&record.id, change, &self.rules.limits)
                .await
            {
                tracing::warn!(task = record.id(), error = %e, "could not fail a task that cannot wake");
            }
        }
    }

    /// Runs the resumable task of `record` again here, from the start,
    /// with the answers the record holds; `false` when the record keeps
    /// no call this server can run.
    pub fn resume(&self, record: &TaskRecord) -> bool {
        let Some(resume) = self.rules.resume.get() else {
            return false;
        };
        let link = self.link(&record.id);
        let Some((origin, run)) = resume(record, link.clone()) else {
            return false;
        };
        self.spawn(link, record, origin, run, Charge::none());
        true
    }

    /// The task's watch, once the store answers; `None` if it is gone.
    async fn watch(&self, id: &str) -> Option<TaskWatch> {
        loop {
            match self.store.watch(id).await {
                Ok(watch) => return watch,
                Err(e) => {
                    tracing::warn!(task = id, error = %e, "cannot follow the task; trying again");
                    tokio::time::sleep(STORE_RETRY).await;
                }
            }
        }
    }

    /// Records the handler's end, once the store answers.
    async fn record(&self, id: &str, origin: &str, end: TaskChange) {
        loop {
            match self.store.apply(id, end.clone(), &self.rules.limits).await {
                Ok(_) => return,
                Err(StoreError::Backend(e)) => {
                    tracing::warn!(task = id, error = %e, "cannot record the task's end; trying again");
                    tokio::time::sleep(STORE_RETRY).await;
                }
                Err(e) => {
                    report_internal(origin, &format!("could not record the task's outcome: {e}"));
                    return;
                }
            }
        }
    }
}

/// [`Runners`] that do not keep the store alive.
#[derive(Clone)]
pub(crate) struct WeakRunners {
    store: Weak<dyn TaskStore>,
    rules: Arc<RunnerRules>,
}

impl WeakRunners {
    /// The runners, while the store lives.
    pub fn upgrade(&self) -> Option<Runners> {
        Some(Runners {
            store: self.store.upgrade()?,
            rules: Arc::clone(&self.rules),
        })
    }
}

/// This server's leases: its id, and how long a lease lasts.
#[derive(Debug)]
pub(crate) struct LeaseKeeper {
    holder: String,
    length: Duration,
}

impl LeaseKeeper {
    /// Leases of `length` for a server with a fresh random id.
    fn new(length: Duration) -> Self {
        LeaseKeeper {
            holder: crate::util::random_id::<12>(),
            length,
        }
    }

    /// A lease of this server's from `now`.
    pub fn lease(&self, now: SystemTime) -> Lease {
        Lease::new(&self.holder, now, self.length)
    }

    /// Takes the lease on task `id`, then renews it every third of its
    /// length; returns only when another server holds it (this one was cut
    /// off from the store for longer than a lease, and the task was taken
    /// over). A renewal that fails is tried again at the next one.
    async fn keep(&self, store: &dyn TaskStore, id: &str) {
        let renewal = self.length / 3;
        loop {
            let now = SystemTime::now();
            match store.hold(id, &self.lease(now), now).await {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => tracing::warn!(task = id, error = %e, "could not renew the task's lease"),
            }
            tokio::time::sleep(renewal).await;
        }
    }
}

/// Why a runner stopped following a handler that had not returned.
enum Stop {
    /// The task ended (or is gone).
    Ended,
    /// The handler may sleep, and its link is ready for that: the task as
    /// it was then.
    Asleep(Arc<TaskRecord>),
}

/// Follows the task until it ends, or, when `sleepy` (no leases, and a
/// server that can run tasks again), until its handler may sleep: the
/// task waits for input, its tool is resumable, and `link` agrees. Each
/// version goes to `link` too, where the handler's questions wait for
/// their answers: one watch per run serves both.
#[allow(
    clippy::manual_async_fn,
    reason = "an `async fn` would keep its arguments twice"
)]
fn stopped(mut watch: TaskWatch, link: &TaskLink, sleepy: bool) -> impl Future<Output = Stop> {
    async move {
        while let Some(record) = watch.next().await {
            // The handler's parked questions wait on what this watch sees.
            link.saw(&record);
            if record.status.is_terminal() {
                return Stop::Ended;
            }
            let waits = record.status == TaskStatus::InputRequired && record.call.is_some();
            if sleepy && waits && link.sleep() {
                return Stop::Asleep(record);
            }
        }
        Stop::Ended
    }
}

/// Keeps the task's lease while the handler runs, when the server takes
/// leases; resolves only if another server took the task over.
///
/// The keeping is boxed: most servers take no leases, and the runner's
/// future, which every running or parked task holds, would otherwise keep
/// room for it (some 250 bytes).
async fn keep_lease(leases: Option<&LeaseKeeper>, store: &dyn TaskStore, id: &str) {
    match leases {
        Some(leases) => Box::pin(leases.keep(store, id)).await,
        None => std::future::pending().await,
    }
}

/// Resolves `ttl` from now; never without a TTL.
async fn expiry(ttl: Option<Duration>) {
    match ttl {
        Some(ttl) => tokio::time::sleep(ttl).await,
        None => std::future::pending().await,
    }
}
