//! Values many holders repeat, kept once per thread: [`LastSeen`] and
//! [`shared_with_last`].

use std::cell::RefCell;
use std::sync::Arc;

/// The last value of a kind a thread shared, for [`shared_with_last`].
pub(crate) type LastSeen<T> = RefCell<Option<Arc<T>>>;

/// `value`, shared with `last` when they are equal; otherwise `own(value)`,
/// which becomes the last. A value many requests or tasks repeat (a
/// client's capabilities, a tool's question) is then kept once per
/// thread instead of once per holder, with no lock shared between
/// threads.
pub(crate) fn shared_with_last<T: ?Sized + PartialEq>(
    last: &LastSeen<T>,
    value: &T,
    own: impl FnOnce(&T) -> Arc<T>,
) -> Arc<T> {
    let mut last = last.borrow_mut();
    match &*last {
        Some(seen) if **seen == *value => Arc::clone(seen),
        _ => Arc::clone(last.insert(own(value))),
    }
}
