//! A hand-written Skills server for client tests: `skills/list` (paged),
//! `skills/get`, and every file served as a `skill://` resource. A test
//! can change what a file serves after its entry was made, to play a
//! skill that changed or a server that lies, and can see every read.
//!
//! It is written on the public extension API only, so the client is
//! tested against the spec, not against presa's own Skills server.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use presa::prelude::*;
use presa::server::extension::{Extension, ExtensionMethod, MethodCall};
use presa::server::{ReadRequest, ReadResult, ResourceDefinition, ResourceHandler};
use presa::wire::{
    ErrorObject, GetSkillParams, PaginatedParams, ResourceTemplate, SKILL_MD, SKILLS_EXTENSION,
    Skill, SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::json;

/// How `skills/list` pages.
#[derive(Debug, Clone, Copy)]
pub enum Paging {
    /// `n` entries a page, then no cursor.
    By(usize),
    /// `n` copies of the first entry a page, and always a new cursor.
    Endless(usize),
}

#[derive(Default)]
struct Shelf {
    entries: Vec<Skill>,
    served: BTreeMap<String, Vec<u8>>,
    reads: Vec<String>,
}

/// The skills a test serves, shared with the server it builds.
#[derive(Clone, Default)]
pub struct SkillShelf {
    shelf: Arc<Mutex<Shelf>>,
}

impl SkillShelf {
    pub fn new() -> SkillShelf {
        SkillShelf::default()
    }

    /// Adds the skill at `root` (`skill://name`), whose files are `files`
    /// by path, `SKILL.md` among them, and returns its entry.
    pub fn add(&self, root: &str, files: &[(&str, &[u8])]) -> Skill {
        let uri = format!("{root}/{SKILL_MD}");
        let (_, skill_md) = files
            .iter()
            .find(|(path, _)| *path == SKILL_MD)
            .expect("a skill has a SKILL.md");
        let frontmatter =
            SkillFrontmatter::from_skill_md(std::str::from_utf8(skill_md).unwrap()).unwrap();
        let mut lines = Vec::new();
        for (path, bytes) in files {
            let file = format!("{root}/{path}");
            lines.push(SkillResource::of(&file, bytes));
            self.serve(&file, bytes);
        }
        let entry = Skill {
            uri,
            frontmatter,
            resources: SkillResources::Listed(lines),
        };
        self.add_entry(entry.clone());
        entry
    }

    /// Lists `entry` as it is, whatever it says.
    pub fn add_entry(&self, entry: Skill) {
        self.shelf.lock().unwrap().entries.push(entry);
    }

    /// Serves `bytes` at `uri` from now on.
    pub fn serve(&self, uri: &str, bytes: &[u8]) {
        let mut shelf = self.shelf.lock().unwrap();
        shelf.served.insert(uri.to_owned(), bytes.to_vec());
    }

    /// Every `resources/read` so far, by URI.
    pub fn reads(&self) -> Vec<String> {
        self.shelf.lock().unwrap().reads.clone()
    }

    /// A server that serves the files, and declares Skills (`skills/list`
    /// paged as `paging` says) when `paging` is `Some`.
    pub fn server(&self, paging: Option<Paging>) -> Server {
        let builder = Server::builder("skills", "1").resource(SkillFiles(self.clone()));
        match paging {
            Some(paging) => builder
                .extension(SkillsExtension {
                    shelf: self.clone(),
                    paging,
                })
                .build(),
            None => builder.build(),
        }
    }
}

struct SkillsExtension {
    shelf: SkillShelf,
    paging: Paging,
}

impl Extension for SkillsExtension {
    fn id(&self) -> &'static str {
        SKILLS_EXTENSION
    }

    fn methods(&self) -> Vec<ExtensionMethod> {
        let shelf = self.shelf.clone();
        let paging = self.paging;
        let list = ExtensionMethod::new("skills/list", move |call: MethodCall| {
            let shelf = shelf.clone();
            async move {
                let params: PaginatedParams = call.params()?;
                let at: usize = params.cursor.as_deref().map_or(0, |c| c.parse().unwrap());
                let entries = shelf.shelf.lock().unwrap().entries.clone();
                let (page, next) = match paging {
                    Paging::By(n) => {
                        let page: Vec<Skill> = entries.iter().skip(at).take(n).cloned().collect();
                        let next = (at + n < entries.len()).then(|| (at + n).to_string());
                        (page, next)
                    }
                    Paging::Endless(n) => (vec![entries[0].clone(); n], Some((at + 1).to_string())),
                };
                let mut result = json!({"skills": page, "ttlMs": 0, "cacheScope": "private"});
                if let Some(next) = next {
                    result["nextCursor"] = json!(next);
                }
                Ok(call.complete(result))
            }
        });
        let shelf = self.shelf.clone();
        let get = ExtensionMethod::new("skills/get", move |call: MethodCall| {
            let shelf = shelf.clone();
            async move {
                let params: GetSkillParams = call.params()?;
                let entries = shelf.shelf.lock().unwrap().entries.clone();
                let Some(skill) = entries.into_iter().find(|s| s.uri == params.uri) else {
                    return Err(ErrorObject::new(
                        -32602,
                        format!("No skill is served at {}", params.uri),
                    ));
                };
                Ok(call.complete(json!({"skill": skill, "ttlMs": 0, "cacheScope": "private"})))
            }
        });
        vec![list, get]
    }
}

/// Every file of the shelf, as `skill://{+path}`.
struct SkillFiles(SkillShelf);

#[async_trait]
impl ResourceHandler for SkillFiles {
    fn definition(&self) -> ResourceDefinition {
        ResourceDefinition::Template(ResourceTemplate::new("skill://{+path}", "skill-files"))
    }

    async fn read(&self, _ctx: Context, request: ReadRequest) -> ReadResult {
        let mut shelf = self.0.shelf.lock().unwrap();
        shelf.reads.push(request.uri.clone());
        let bytes = shelf
            .served
            .get(&request.uri)
            .cloned()
            .ok_or_else(|| ToolError::new(format!("{} is not served", request.uri)))?;
        let contents = match String::from_utf8(bytes) {
            Ok(text) => request.text(text),
            Err(binary) => request.bytes(binary.as_bytes()),
        };
        Ok(request.result(vec![contents]))
    }
}

/// A `SKILL.md` for `name`, with `description`.
pub fn skill_md(name: &str, description: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nRead references/GUIDE.md.\n")
        .into_bytes()
}
