//! [`SkillsExtension`]: the Skills extension, as the server's extension
//! seam sees it (SEP-2640, "Capability Negotiation").

use std::sync::Arc;

use serde_json::{Map, Value};

use super::file::SkillFileResource;
use super::library::SkillLibrary;
use super::methods::skill_methods;
use crate::server::extension::{Extension, ExtensionMethod};
use crate::server::handlers::resource::ResourceHandler;
use crate::wire::{SKILLS_EXTENSION, SkillsSettings};

/// The Skills extension of a server, over its library.
pub(crate) struct SkillsExtension {
    library: SkillLibrary,
}

impl SkillsExtension {
    /// The extension, serving `library`.
    pub fn new(library: SkillLibrary) -> SkillsExtension {
        SkillsExtension { library }
    }
}

impl Extension for SkillsExtension {
    fn id(&self) -> &'static str {
        SKILLS_EXTENSION
    }

    /// `{"directoryRead": true}`: every folder of the library is read.
    fn capability(&self) -> Option<Map<String, Value>> {
        let settings = SkillsSettings {
            directory_read: true,
        };
        match serde_json::to_value(settings) {
            Ok(Value::Object(settings)) => Some(settings),
            _ => Some(Map::new()),
        }
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        skill_methods(&self.library)
    }

    /// Every file of every skill; registering them is what makes
    /// `server/discover` declare the `resources` capability, as the
    /// extension requires.
    fn resources(&self) -> Vec<Arc<dyn ResourceHandler>> {
        let index = &self.library.index;
        index
            .files
            .keys()
            .map(|uri| {
                let file = SkillFileResource::new(Arc::clone(index), uri.clone(), self.library.ttl);
                Arc::new(file) as Arc<dyn ResourceHandler>
            })
            .collect()
    }
}
