//! [`Advertised`]: an extension the server only names in
//! `server/discover`, such as one whose behaviour lives in tools.

use serde_json::{Map, Value};

use super::contract::Extension;

/// An extension that serves no method: `server/discover` advertises `id`
/// with `settings`, and nothing else changes.
///
/// Use it when what the extension changes lives in your own tools and
/// resources, and a client needs only to know the server speaks it.
#[derive(Debug, Clone)]
pub struct Advertised {
    id: &'static str,
    settings: Map<String, Value>,
}

impl Advertised {
    /// Advertises extension `id` with `settings`.
    ///
    /// # Panics
    ///
    /// If `settings` is not a JSON object: the protocol advertises an
    /// extension's settings as one.
    pub fn new(id: &'static str, settings: Value) -> Self {
        let Value::Object(settings) = settings else {
            panic!(
                "the settings of extension `{id}` must be a JSON object, such as `{{}}`, \
                 not {settings}"
            );
        };
        Advertised { id, settings }
    }
}

impl Extension for Advertised {
    fn id(&self) -> &'static str {
        self.id
    }

    fn capability(&self) -> Option<Map<String, Value>> {
        Some(self.settings.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    #[should_panic(expected = "the settings of extension `com.example/x` must be a JSON object")]
    fn settings_are_an_object() {
        Advertised::new("com.example/x", json!([1]));
    }

    #[test]
    fn the_settings_are_advertised_as_given() {
        let advertised = Advertised::new("com.example/x", json!({"v": 1}));
        assert_eq!(
            advertised.capability(),
            json!({"v": 1}).as_object().cloned()
        );
    }
}
