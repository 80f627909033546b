//! [`Tasks`]: the Tasks extension, as the server's extension seam sees it.

use std::sync::Arc;

use super::methods::task_methods;
use crate::server::extension::{Extension, ExtensionMethod};
use crate::server::task_engine::TaskEngine;
use crate::wire::{TASKS_EXTENSION, notifications};

/// The Tasks extension of a server, over its task engine.
pub(crate) struct Tasks {
    engine: Arc<TaskEngine>,
}

impl Tasks {
    /// The extension, serving the tasks `engine` keeps.
    pub fn new(engine: Arc<TaskEngine>) -> Tasks {
        Tasks { engine }
    }
}

impl Extension for Tasks {
    fn id(&self) -> &'static str {
        TASKS_EXTENSION
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        task_methods(&self.engine)
    }

    fn notifications(&self) -> &'static [&'static str] {
        &[notifications::TASKS]
    }
}
