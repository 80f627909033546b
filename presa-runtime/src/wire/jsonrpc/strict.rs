//! Strict reading of the peer's JSON: an object wherever the schema says
//! object.
//!
//! serde's derived `Deserialize` for a struct takes a JSON array as well as
//! an object, reading the array's items into the fields in declaration
//! order; `serde_json` lets it. So `["n", "v"]` would be read as a
//! `clientInfo` of name `n` and version `v`, and `[{}, null, null, {…}]` as
//! capabilities that declare elicitation and an extension. The MCP schema
//! has objects everywhere, and a peer that sends arrays is either broken or
//! probing, so presa reads everything a peer sends through [`from_value`],
//! by these rules, in order:
//!
//! 1. Where the type wants a struct or a map, only an object is taken.
//!    Anything else fails with "expected an object, found an array" (or a
//!    string, …), and the error names where, as a `jq` path:
//!    `` `.inputResponses.confirm.content` ``.
//! 2. Everything else reads as `serde_json` reads it: an array where a
//!    sequence or a tuple is wanted, strings, numbers, `null` for `None`,
//!    enums by their tag.
//! 3. serde reads untagged and internally tagged enums, and flattened
//!    fields, from a buffer of its own, which rule 1 cannot see into; an
//!    internally tagged enum even takes an array whose first item is its
//!    tag. A wire type read from the peer therefore marks each such place
//!    with `#[serde(deserialize_with = "strict::object")]` ([`object`]):
//!    the value there must be an object, and what it holds is read by these
//!    rules again. A type whose shape chooses its variant reads an object
//!    first ([`entries`]) and then each candidate with [`from_value`] (as
//!    [`InputResponse`](crate::wire::InputResponse) does).
//!
//! The server parses every method's params, the request `_meta`, tool
//! arguments and elicited content this way; the client parses every
//! result and notification this way.

use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Reads `value` as a `T` by the rules in the [module docs](self).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, StrictError> {
    T::deserialize(Strict(value)).map_err(|e| StrictError::from_message(&e.to_string()))
}

/// For `#[serde(deserialize_with = "…")]` where serde reads from its own
/// buffer (rule 3): the value must be an object, and the `T` it holds is
/// read strictly, whatever deserializer is around it.
pub fn object<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    from_value(Value::Object(entries(deserializer)?)).map_err(de::Error::custom)
}

/// [`object`] for a map of JSON values, whose entries no rule applies
/// to: the value must be an object, and is taken as it was read, without
/// the second pass [`object`] makes to read a `T` out of it.
pub fn entries<'de, D>(deserializer: D) -> Result<Map<String, Value>, D::Error>
where
    D: Deserializer<'de>,
{
    match Value::deserialize(deserializer)? {
        Value::Object(entries) => Ok(entries),
        other => Err(de::Error::custom(not_an_object(&other))),
    }
}

/// Why a value read strictly is not of its type: what was wrong, and
/// where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictError {
    /// A `jq` path (`.a.b[0]`); empty for the value itself.
    path: String,
    message: String,
}

impl StrictError {
    /// The error a [`Strict`] read ended with: its message, the path
    /// in front when the error came from inside (see [`within`]).
    fn from_message(message: &str) -> Self {
        let (path, message) = split_path(message);
        StrictError {
            path: path.to_owned(),
            message: message.to_owned(),
        }
    }

    /// The same error for a value found under `key` of an object.
    pub fn under(mut self, key: &str) -> Self {
        self.path = key_segment(key) + &self.path;
        self
    }

    /// Where, as a `jq` path (`.a.b[0]`); empty for the value itself.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was wrong, without the path.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StrictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "`{}`: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for StrictError {}

impl From<StrictError> for serde_json::Error {
    fn from(error: StrictError) -> Self {
        de::Error::custom(error)
    }
}

/// How an error found inside a value names where: its message starts
/// with the `jq` path in backticks, `` `.a[0]`: ``, growing at the front
/// as the error leaves each object, array and enum payload. Only an
/// error pays for its path: reading a good value copies no key.
fn within(segment: impl FnOnce() -> String, error: Error) -> Error {
    let message = error.to_string();
    let (path, message) = split_path(&message);
    de::Error::custom(format!("`{}{path}`: {message}", segment()))
}

/// The path an error's message starts with (empty if none) and the rest.
fn split_path(message: &str) -> (&str, &str) {
    message
        .strip_prefix('`')
        .and_then(|rest| rest.split_once("`: "))
        .filter(|(path, _)| path.starts_with(['.', '[']))
        .unwrap_or(("", message))
}

/// `.key`, or `."key"` when the key is not a plain identifier.
fn key_segment(key: &str) -> String {
    let plain = key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!(".{key}")
    } else {
        format!(".{}", Value::from(key))
    }
}

fn not_an_object(found: &Value) -> String {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    format!("expected an object, found {found}")
}

/// A `serde_json::Value` that gives structs and maps objects only, and
/// hands the same strictness to everything inside it.
struct Strict(Value);

type Error = serde_json::Error;

/// Methods that read no nested value: `serde_json` answers them.
macro_rules! forward_to_value {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.0.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for Strict {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(entries) => visit_object(entries, visitor),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(entries) => visit_object(entries, visitor),
            other => Err(de::Error::custom(not_an_object(&other))),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(Strict(value)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Tagged {
                variant,
                value: None,
            }),
            Value::Object(entries) if entries.len() == 1 => {
                let (variant, value) = entries.into_iter().next().expect("one entry");
                visitor.visit_enum(Tagged {
                    variant,
                    value: Some(value),
                })
            }
            other => other.deserialize_enum(name, variants, visitor),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    forward_to_value! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut items = Items {
        items: items.into_iter(),
        index: 0,
    };
    let value = visitor.visit_seq(&mut items)?;
    if items.items.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in array"))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    entries: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = entries.len();
    let mut entries = Entries {
        entries: entries.into_iter(),
        current: None,
    };
    let value = visitor.visit_map(&mut entries)?;
    if entries.entries.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

/// The items of an array, each read strictly; `index` is the next one's.
struct Items {
    items: std::vec::IntoIter<Value>,
    index: usize,
}

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(Strict(item))
            .map(Some)
            .map_err(|e| within(|| format!("[{index}]"), e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The entries of an object, each value read strictly; keys are strings.
/// The entry being read is kept whole, so that an error in its value can
/// name its key.
struct Entries {
    entries: serde_json::map::IntoIter,
    current: Option<(String, Value)>,
}

impl<'de> MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        let key: de::value::StrDeserializer<'_, Error> = entry.0.as_str().into_deserializer();
        let key = seed.deserialize(key)?;
        self.current = Some(entry);
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (key, value) = self
            .current
            .take()
            .ok_or_else(|| <Error as de::Error>::custom("a map value was read before its key"))?;
        seed.deserialize(Strict(value))
            .map_err(|e| within(|| key_segment(&key), e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum: its variant's name, and its payload if the
/// variant has one.
struct Tagged {
    variant: String,
    value: Option<Value>,
}

impl<'de> EnumAccess<'de> for Tagged {
    type Error = Error;
    type Variant = Payload;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Payload), Error> {
        let name: de::value::StrDeserializer<'_, Error> = self.variant.as_str().into_deserializer();
        let name = seed.deserialize(name)?;
        let payload = Payload {
            variant: self.variant,
            value: self.value,
        };
        Ok((name, payload))
    }
}

/// The payload of an enum variant, read strictly; an error in it names
/// the variant, as a key.
struct Payload {
    variant: String,
    value: Option<Value>,
}

impl Payload {
    /// Reads the payload with `read`, or fails as a variant with none
    /// where `expected` was wanted.
    fn read<T>(
        self,
        expected: &'static str,
        read: impl FnOnce(Strict) -> Result<T, Error>,
    ) -> Result<T, Error> {
        match self.value {
            Some(value) => {
                read(Strict(value)).map_err(|e| within(|| key_segment(&self.variant), e))
            }
            None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &expected)),
        }
    }
}

impl<'de> VariantAccess<'de> for Payload {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(de::Error::invalid_type(unexpected(&other), &"unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        self.read("newtype variant", |payload| seed.deserialize(payload))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.read("tuple variant", |payload| payload.deserialize_seq(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.read("struct variant", |payload| payload.deserialize_map(visitor))
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Info {
        name: String,
        version: String,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Envelope {
        info: Info,
        #[serde(default)]
        maybe: Option<Info>,
        #[serde(default)]
        list: Vec<Info>,
        #[serde(default)]
        pair: Option<(u8, String)>,
        #[serde(default)]
        by_key: BTreeMap<String, Info>,
    }

    fn info() -> Value {
        json!({"name": "n", "version": "v"})
    }

    fn error<T: DeserializeOwned + fmt::Debug>(value: Value) -> String {
        from_value::<T>(value).unwrap_err().to_string()
    }

    #[test]
    fn a_struct_takes_an_object_and_refuses_an_array() {
        assert_eq!(
            from_value::<Info>(info()).unwrap(),
            Info {
                name: "n".into(),
                version: "v".into()
            }
        );
        assert_eq!(
            error::<Info>(json!(["n", "v"])),
            "expected an object, found an array"
        );
        assert_eq!(
            error::<Info>(json!("n")),
            "expected an object, found a string"
        );
        // What serde_json alone does, and what this module is for.
        assert!(serde_json::from_value::<Info>(json!(["n", "v"])).is_ok());
    }

    #[test]
    fn nested_values_are_read_strictly_and_named_by_path() {
        let base = || json!({"info": info()});
        let mut nested = base();
        nested["info"] = json!(["n", "v"]);
        assert_eq!(
            error::<Envelope>(nested),
            "`.info`: expected an object, found an array"
        );
        let mut optional = base();
        optional["maybe"] = json!(["n", "v"]);
        assert_eq!(
            error::<Envelope>(optional),
            "`.maybe`: expected an object, found an array"
        );
        let mut in_list = base();
        in_list["list"] = json!([info(), ["n", "v"]]);
        assert_eq!(
            error::<Envelope>(in_list),
            "`.list[1]`: expected an object, found an array"
        );
        let mut in_map = base();
        in_map["by_key"] = json!({"io.example/x": ["n", "v"]});
        assert_eq!(
            error::<Envelope>(in_map),
            "`.by_key.\"io.example/x\"`: expected an object, found an array"
        );
        let mut map_as_array = base();
        map_as_array["by_key"] = json!([info()]);
        assert_eq!(
            error::<Envelope>(map_as_array),
            "`.by_key`: expected an object, found an array"
        );
    }

    #[test]
    fn arrays_still_read_where_the_type_wants_a_sequence() {
        let parsed: Envelope = from_value(json!({
            "info": info(), "maybe": null, "list": [info(), info()], "pair": [7, "x"],
            "by_key": {"k": info()}, "unknown": [1, {"a": []}]
        }))
        .unwrap();
        assert_eq!(parsed.maybe, None);
        assert_eq!(parsed.list.len(), 2);
        assert_eq!(parsed.pair, Some((7, "x".into())));
        assert_eq!(parsed.by_key["k"].name, "n");
        let long = json!({"info": info(), "pair": [7, "x", true]});
        assert!(error::<Envelope>(long).contains("fewer elements in array"));
        // A `Value` takes whatever it is given, arrays of objects included.
        let any: Value = from_value(json!([{"a": [1]}, null])).unwrap();
        assert_eq!(any, json!([{"a": [1]}, null]));
    }

    #[test]
    fn externally_tagged_enums_read_their_payload_strictly() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(rename_all = "lowercase")]
        enum Choice {
            Plain,
            Wrapped(Info),
            Inline { name: String },
        }
        assert_eq!(from_value::<Choice>(json!("plain")).unwrap(), Choice::Plain);
        assert!(matches!(
            from_value::<Choice>(json!({"wrapped": info()})).unwrap(),
            Choice::Wrapped(_)
        ));
        assert_eq!(
            error::<Choice>(json!({"wrapped": ["n", "v"]})),
            "`.wrapped`: expected an object, found an array"
        );
        assert_eq!(
            error::<Choice>(json!({"inline": ["n"]})),
            "`.inline`: expected an object, found an array"
        );
        assert!(error::<Choice>(json!("other")).contains("unknown variant `other`"));
    }

    #[test]
    fn internally_tagged_enums_need_object_on_their_variants() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(tag = "type", rename_all = "lowercase")]
        enum Plain {
            Info(Info),
        }
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(tag = "type", rename_all = "lowercase")]
        enum Marked {
            #[serde(deserialize_with = "object")]
            Info(Info),
        }
        let tagged = json!({"type": "info", "name": "n", "version": "v"});
        assert!(from_value::<Plain>(tagged.clone()).is_ok());
        assert!(from_value::<Marked>(tagged).is_ok());
        // serde reads a tagged enum from its own buffer (rule 3): unmarked,
        // it takes the tag and the fields by position.
        assert!(from_value::<Plain>(json!(["info", "n", "v"])).is_ok());
        assert_eq!(
            error::<Marked>(json!(["info", "n", "v"])),
            "expected an object, found an array"
        );
    }

    #[test]
    fn untagged_enums_and_flattened_fields_need_object_too() {
        #[derive(Debug, PartialEq, Deserialize)]
        #[serde(untagged)]
        enum Shape {
            #[serde(deserialize_with = "object")]
            Info(Info),
            Other(Value),
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Outer {
            id: u8,
            #[serde(flatten, deserialize_with = "object")]
            rest: Envelope,
        }
        assert!(matches!(
            from_value::<Shape>(info()).unwrap(),
            Shape::Info(_)
        ));
        assert!(matches!(
            from_value::<Shape>(json!(["n", "v"])).unwrap(),
            Shape::Other(_)
        ));
        let outer = json!({"id": 1, "info": info(), "list": [info()]});
        assert_eq!(from_value::<Outer>(outer).unwrap().rest.list.len(), 1);
        let deep = json!({"id": 1, "info": info(), "list": [["n", "v"]]});
        assert_eq!(
            error::<Outer>(deep),
            "`.list[0]`: expected an object, found an array"
        );
    }

    #[test]
    fn a_path_found_below_object_continues_the_outer_one() {
        #[derive(Debug, Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "object")]
            held: Envelope,
        }
        let fine = json!({"held": {"info": info(), "list": [info()]}});
        assert_eq!(from_value::<Holder>(fine).unwrap().held.list.len(), 1);
        let value = json!({"held": {"info": info(), "list": [info(), ["n"]]}});
        assert_eq!(
            error::<Holder>(value),
            "`.held.list[1]`: expected an object, found an array"
        );
        assert_eq!(
            error::<Holder>(json!({"held": 5})),
            "`.held`: expected an object, found a number"
        );
    }

    #[test]
    fn under_names_the_key_the_value_was_found_at() {
        let nested = from_value::<Envelope>(json!({"info": []})).unwrap_err();
        assert_eq!(
            nested.under("_meta").to_string(),
            "`._meta.info`: expected an object, found an array"
        );
        let at_root = from_value::<Info>(json!([])).unwrap_err();
        assert_eq!(
            at_root
                .under("io.modelcontextprotocol/clientInfo")
                .to_string(),
            "`.\"io.modelcontextprotocol/clientInfo\"`: expected an object, found an array"
        );
        assert_eq!(
            error::<Info>(json!({"name": "n"})),
            "missing field `version`"
        );
    }

    /// Each place where a wire type read from the peer goes through
    /// serde's buffer (rule 3), given an array by position: unmarked,
    /// each would be read as the object it stands for.
    #[test]
    fn the_wire_types_refuse_arrays_where_serde_buffers() {
        use crate::wire::{CallToolResult, CompleteParams, GetTaskResult, ReadResourceResult};

        fn refused<T: DeserializeOwned + fmt::Debug>(value: Value, expected: &str) {
            assert_eq!(from_value::<T>(value).unwrap_err().to_string(), expected);
        }
        let task = || {
            json!({"resultType": "complete", "taskId": "t", "status": "failed",
                   "createdAt": "c", "lastUpdatedAt": "u", "ttlMs": null})
        };
        let mut failed = task();
        failed["error"] = json!([-32603, "Internal error"]);
        refused::<GetTaskResult>(failed, "`.error`: expected an object, found an array");
        let mut asking = task();
        asking["status"] = json!("input_required");
        asking["inputRequests"] = json!({"k": ["roots/list", {}]});
        refused::<GetTaskResult>(
            asking,
            "`.inputRequests.k`: expected an object, found an array",
        );
        refused::<CompleteParams>(
            json!({"ref": ["ref/prompt", "p"], "argument": {"name": "a", "value": ""}}),
            "`.ref`: expected an object, found an array",
        );
        refused::<CallToolResult>(
            json!({"content": [["text", "hi"]]}),
            "`.content[0]`: expected an object, found an array",
        );
        refused::<CallToolResult>(
            json!({"content": [{"type": "text", "text": "hi", "annotations": [["user"], 1]}]}),
            "`.content[0].annotations`: expected an object, found an array",
        );
        refused::<ReadResourceResult>(
            json!({"contents": [{"uri": "u:", "text": "t", "_meta": [1]}]}),
            "`.contents[0]._meta`: expected an object, found an array",
        );
    }
}
