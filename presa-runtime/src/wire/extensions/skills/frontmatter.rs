//! A skill's frontmatter (SEP-2640, "Frontmatter"): the YAML block at the
//! top of its `SKILL.md`, carried in the entry as a JSON object.
//!
//! The server reads it from the file when it loads a skill. The client
//! reads it again from the file it fetched, and compares the two field by
//! field before it uses the skill. Both go through
//! [`SkillFrontmatter::from_skill_md`], so the two sides read YAML the same
//! way. Rules, in order:
//!
//! 1. the file starts with a line `---` (after an optional byte order
//!    mark), and the block ends at the next line that is `---`;
//! 2. the block is a YAML mapping, parsed with serde-saphyr's default
//!    budget, so an alias bomb or a deep nest fails instead of growing;
//! 3. `name` and `description` are non-empty strings; every other field
//!    passes through unchanged.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Why a `SKILL.md` has no usable frontmatter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontmatterError {
    /// The file does not start with a `---` line, or the block never ends.
    #[error(
        "SKILL.md must start with YAML frontmatter between two `---` lines, and this one does not"
    )]
    Missing,
    /// The block is not valid YAML, or is too large or deep to read.
    #[error("the SKILL.md frontmatter is not valid YAML: {0}")]
    Yaml(String),
    /// The block is YAML, but not a mapping of names to values.
    #[error("the SKILL.md frontmatter must be a mapping of fields, such as `name: my-skill`")]
    NotAMapping,
    /// `name` or `description` is missing, empty or not a string.
    #[error("the SKILL.md frontmatter must have a non-empty `{0}` string")]
    MissingField(&'static str),
}

/// The frontmatter of a `SKILL.md`: every field the author wrote, with a
/// non-empty `name` and `description` always among them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct SkillFrontmatter(Map<String, Value>);

impl SkillFrontmatter {
    /// Checks that `fields` has a non-empty string `name` and `description`.
    pub fn new(fields: Map<String, Value>) -> Result<SkillFrontmatter, FrontmatterError> {
        for required in ["name", "description"] {
            match fields.get(required) {
                Some(Value::String(text)) if !text.is_empty() => {}
                _ => return Err(FrontmatterError::MissingField(required)),
            }
        }
        Ok(SkillFrontmatter(fields))
    }

    /// Reads the frontmatter at the top of a `SKILL.md`.
    pub fn from_skill_md(text: &str) -> Result<SkillFrontmatter, FrontmatterError> {
        let block = frontmatter_block(text).ok_or(FrontmatterError::Missing)?;
        let value: Value = serde_saphyr::from_str(block)
            .map_err(|error| FrontmatterError::Yaml(first_line(&error.to_string())))?;
        match value {
            Value::Object(fields) => SkillFrontmatter::new(fields),
            // An empty block reads as null.
            Value::Null => Err(FrontmatterError::MissingField("name")),
            _ => Err(FrontmatterError::NotAMapping),
        }
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        self.0["name"].as_str().unwrap_or_default()
    }

    /// What the skill does, for the model and the user.
    pub fn description(&self) -> &str {
        self.0["description"].as_str().unwrap_or_default()
    }

    /// Every field, `name` and `description` included.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The fields whose values differ between `self` and `other`, by name,
    /// sorted. A field present on one side only counts as different.
    pub fn differences(&self, other: &SkillFrontmatter) -> Vec<String> {
        let mut names: Vec<&String> = self.0.keys().chain(other.0.keys()).collect();
        names.sort();
        names.dedup();
        names
            .into_iter()
            .filter(|name| self.0.get(*name) != other.0.get(*name))
            .cloned()
            .collect()
    }
}

impl<'de> Deserialize<'de> for SkillFrontmatter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = Map::deserialize(deserializer)?;
        SkillFrontmatter::new(fields).map_err(serde::de::Error::custom)
    }
}

/// The text between the opening and closing `---` lines, if the file has
/// both.
fn frontmatter_block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            return Some(&rest[..offset]);
        }
        offset += line.len();
    }
    None
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_field_passes_through() {
        let text = "---\nname: pdf\ndescription: Read PDFs\nlicense: MIT\nmetadata:\n  version: \"2.1\"\n  n: 3\n---\n# Body\n";
        let frontmatter = SkillFrontmatter::from_skill_md(text).unwrap();
        assert_eq!(frontmatter.name(), "pdf");
        assert_eq!(frontmatter.description(), "Read PDFs");
        assert_eq!(
            serde_json::to_value(&frontmatter).unwrap(),
            json!({"name": "pdf", "description": "Read PDFs", "license": "MIT",
                   "metadata": {"version": "2.1", "n": 3}})
        );
    }

    #[test]
    fn a_byte_order_mark_and_crlf_lines_are_read() {
        let text = "\u{feff}---\r\nname: a\r\ndescription: b\r\n---\r\nbody";
        assert_eq!(SkillFrontmatter::from_skill_md(text).unwrap().name(), "a");
        let at_end = "---\nname: a\ndescription: b\n---";
        assert_eq!(SkillFrontmatter::from_skill_md(at_end).unwrap().name(), "a");
    }

    #[test]
    fn each_broken_frontmatter_says_what_is_wrong() {
        let cases = [
            ("# no frontmatter\n", FrontmatterError::Missing),
            ("---\nname: a\ndescription: b\n", FrontmatterError::Missing),
            ("---\n---\n", FrontmatterError::MissingField("name")),
            ("---\n- a\n- b\n---\n", FrontmatterError::NotAMapping),
            (
                "---\ndescription: b\n---\n",
                FrontmatterError::MissingField("name"),
            ),
            (
                "---\nname: a\n---\n",
                FrontmatterError::MissingField("description"),
            ),
            (
                "---\nname: ''\ndescription: b\n---\n",
                FrontmatterError::MissingField("name"),
            ),
            (
                "---\nname: 3\ndescription: b\n---\n",
                FrontmatterError::MissingField("name"),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                SkillFrontmatter::from_skill_md(text).unwrap_err(),
                expected,
                "{text:?}"
            );
        }
        let error = SkillFrontmatter::from_skill_md("---\nname: [a\n---\n").unwrap_err();
        assert!(matches!(error, FrontmatterError::Yaml(_)), "{error:?}");
        assert!(
            error
                .to_string()
                .starts_with("the SKILL.md frontmatter is not valid YAML")
        );
    }

    #[test]
    fn an_alias_bomb_fails_instead_of_growing() {
        let mut text =
            String::from("---\nname: a\ndescription: b\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..12 {
            let previous = level - 1;
            text.push_str(&format!(
                "l{level}: &l{level} [*l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}, *l{previous}]\n"
            ));
        }
        text.push_str("---\n");
        let error = SkillFrontmatter::from_skill_md(&text).unwrap_err();
        assert!(matches!(error, FrontmatterError::Yaml(_)), "{error:?}");
    }

    #[test]
    fn differences_name_each_field_that_is_not_the_same() {
        let a =
            SkillFrontmatter::from_skill_md("---\nname: a\ndescription: b\nx: 1\n---\n").unwrap();
        let b =
            SkillFrontmatter::from_skill_md("---\nname: a\ndescription: c\ny: 1\n---\n").unwrap();
        assert_eq!(a.differences(&b), ["description", "x", "y"]);
        assert!(a.differences(&a).is_empty());
    }

    #[test]
    fn an_entry_without_a_name_does_not_deserialize() {
        let error =
            serde_json::from_value::<SkillFrontmatter>(json!({"description": "d"})).unwrap_err();
        assert!(error.to_string().contains("`name`"), "{error}");
    }
}
