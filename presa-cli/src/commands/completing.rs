//! `presa complete`: the server's suggestions for an argument of a prompt
//! or of a resource template (`completion/complete`).
//!
//! The rules, in order:
//!
//! 1. the reference is `prompt:NAME` or `template:URI`, the URI template
//!    as `presa templates` lists it; anything else is a usage error;
//! 2. the argument is `ARG=PREFIX`, the prefix possibly empty; each
//!    `--context ARG=VALUE` is an argument already given;
//! 3. the suggestions print one a line, escaped, then how many more the
//!    server has, when it says; with `--json`, the completion as the
//!    server sent it.

use presa::wire::{CompleteParams, CompletionReference};

use crate::exit::{Exit, Failure};
use crate::output::render;
use crate::output::shown::{line, note, say};
use crate::session::Session;
use crate::tool_arguments::split_pair;

/// `presa complete`.
pub async fn complete(
    session: &Session,
    reference: &str,
    argument: &str,
    context: &[String],
) -> Result<Exit, Failure> {
    let request = request(reference, argument, context).map_err(Failure::usage)?;
    let completion = session.client.complete(request).await?;
    if session.json {
        render::json(&completion);
        return Ok(Exit::Success);
    }
    if completion.values.is_empty() {
        note!("presa: no suggestions");
    }
    for value in &completion.values {
        say!("{}", line(value));
    }
    let shown = completion.values.len() as u64;
    match (completion.total, completion.has_more) {
        (Some(total), _) if total > shown => note!("presa: {} more", total - shown),
        (_, Some(true)) => note!("presa: the server has more"),
        _ => {}
    }
    Ok(Exit::Success)
}

/// The request the command line asks for (rules 1 and 2).
fn request(reference: &str, argument: &str, context: &[String]) -> Result<CompleteParams, String> {
    let reference = match reference.split_once(':') {
        Some(("prompt", name)) if !name.is_empty() => CompletionReference::prompt(name),
        Some(("template", uri)) if !uri.is_empty() => CompletionReference::resource(uri),
        _ => {
            return Err(format!(
                "`{}` is neither prompt:NAME nor template:URI",
                line(reference)
            ));
        }
    };
    let (name, prefix) = argument
        .split_once('=')
        .filter(|(name, _)| !name.is_empty())
        .ok_or_else(|| {
            format!(
                "`{}` is not ARG=PREFIX, such as language=py",
                line(argument)
            )
        })?;
    let mut request = CompleteParams::new(reference, name, prefix);
    for pair in context {
        let (key, value) = split_pair(pair)?;
        request = request.with_argument(key, value);
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_prompt_or_a_template_argument_with_its_context() {
        let asked = request("prompt:review", "language=py", &["style=terse".into()]).unwrap();
        let asked = serde_json::to_value(asked).unwrap();
        assert_eq!(
            asked["ref"],
            json!({"type": "ref/prompt", "name": "review"})
        );
        assert_eq!(
            asked["argument"],
            json!({"name": "language", "value": "py"})
        );
        assert_eq!(asked["context"]["arguments"], json!({"style": "terse"}));
        let asked = request("template:jobs://builds/{target}", "target=", &[]).unwrap();
        let asked = serde_json::to_value(asked).unwrap();
        assert_eq!(
            asked["ref"],
            json!({"type": "ref/resource", "uri": "jobs://builds/{target}"})
        );
        assert_eq!(asked["argument"]["value"], "");
    }

    #[test]
    fn a_wrong_reference_or_argument_says_what_is_wanted() {
        for (reference, argument) in [
            ("review", "a=b"),
            ("tool:x", "a=b"),
            ("prompt:", "a=b"),
            ("prompt:x", "ab"),
            ("prompt:x", "=b"),
        ] {
            assert!(
                request(reference, argument, &[]).is_err(),
                "{reference} {argument}"
            );
        }
    }
}
