//! The OpenAPI 3.1 document as clients and fuzzers read it. The routes describe themselves
//! (`#[utoipa::path]` on each handler); this module adds what is the same for every route, so
//! no route can forget it: operation ids unique across the document, the two security
//! schemes, the error answers every route can give, and the settings' bounds from
//! [`signaldesk_core::settings::SETTINGS_BOUNDS`], the very table the server validates with.

use std::borrow::Cow;

use serde_json::{json, Map, Value};
use signaldesk_core::settings::{time_zone_names, Bound, SETTINGS_BOUNDS};
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// The routes anyone may call; every other route needs a token or a session.
const PUBLIC_ROUTES: [(&str, &str); 5] = [
    ("post", "/api/auth/login/"),
    ("post", "/api/auth/register/"),
    ("get", "/api/auth/check/"),
    ("post", "/api/webhook/{secret}/"),
    ("get", "/api/openapi.json"),
];

/// Where a created resource's id leads: (operation, status, the operation it links to),
/// each passing `id` from the answer's body. Fuzzers follow these to reach real records.
const LINKS: [(&str, &str, &str); 9] = [
    ("api_keys_create", "201", "api_keys_delete"),
    ("api_keys_create", "201", "api_keys_set_active"),
    ("settings_create", "201", "settings_read"),
    ("settings_create", "201", "settings_update"),
    ("settings_create", "201", "bot_start_signals"),
    ("backtests_create", "202", "backtests_read"),
    ("backtests_create", "202", "backtests_cancel"),
    ("backtests_create", "202", "backtests_label"),
    ("backtests_create", "202", "backtests_delete"),
];

/// Text fields that only ever carry one of a few words: (schema, property, the words).
const WORDS: [(&str, &str, &[&str]); 4] = [
    ("TradeView", "side", &["long", "short"]),
    (
        "TradeView",
        "status",
        &["PENDING", "OPEN", "CLOSED", "CANCELLED"],
    ),
    ("PositionView", "side", &["long", "short"]),
    ("LogView", "level", &["info", "warning", "error"]),
];

/// Text the server trims (Rust's `str::trim`, Unicode White_Space) and then requires non-empty:
/// (schema, property).
const NOT_BLANK: [(&str, &str); 3] = [
    ("NewApiKey", "key"),
    ("NewApiKey", "secret"),
    ("Credentials", "username"),
];

/// At least one character that `str::trim` keeps. Spelled out, because the document's regex
/// dialect (ECMA-262) and Rust disagree on what `\s` holds (U+0085, U+FEFF).
const NOT_BLANK_PATTERN: &str =
    r"[^\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]";

/// Optional properties the server leaves out rather than sending null.
const OMITTED_WHEN_EMPTY: [(&str, &str); 3] = [
    ("ErrorBody", "fields"),
    ("ErrorBody", "otp_required"),
    ("ChannelView", "secret"),
];

const TOKEN_SCHEME: &str = "token";
const SESSION_SCHEME: &str = "session";

/// The body of `POST /api/bot-settings/`, `PUT /api/bot-settings/{id}/` and the risk
/// preview: any of the settings, each optional. [`finish`] writes its schema from
/// `BotSettings`' own, so the two carry the same bounds.
pub struct SettingsInput;

impl PartialSchema for SettingsInput {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().into()
    }
}

impl ToSchema for SettingsInput {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("SettingsInput")
    }
}

/// The finished document: `document` (the routes' own descriptions) with the parts every
/// route shares.
pub fn finish(document: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(document).unwrap_or_default();
    add_security_schemes(&mut doc);
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, item) in paths.iter_mut() {
            let Some(operations) = item.as_object_mut() else {
                continue;
            };
            for (method, operation) in operations.iter_mut() {
                finish_operation(method, path, operation);
            }
        }
    }
    add_links(&mut doc);
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        finish_settings_schemas(schemas);
        for (name, schema) in schemas.iter_mut() {
            require_nullable_properties(name, schema);
        }
        for (name, property) in NOT_BLANK {
            if let Some(p) = schemas
                .get_mut(name)
                .and_then(|s| s.pointer_mut(&format!("/properties/{property}")))
            {
                p["pattern"] = json!(NOT_BLANK_PATTERN);
            }
        }
        for (name, property, words) in WORDS {
            if let Some(p) = schemas
                .get_mut(name)
                .and_then(|s| s.pointer_mut(&format!("/properties/{property}")))
            {
                p["enum"] = json!(words);
            }
        }
    }
    doc
}

/// Bodies clients send, not answers: a property left out is as good as null there.
const REQUEST_BODIES: &[&str] = &[
    "SettingsInput",
    "BacktestInput",
    "WalkForwardInput",
    "ChannelInput",
    "Credentials",
];

/// serde writes `None` as null, so an optional property is always present: required, and
/// nullable (the schema derive marks it not required, which would type it `T | undefined`).
fn require_nullable_properties(name: &str, schema: &mut Value) {
    // A flattened struct is an `allOf` of its parts; each part lists its own properties.
    if let Some(parts) = schema.get_mut("allOf").and_then(Value::as_array_mut) {
        for part in parts {
            require_nullable_properties(name, part);
        }
    }
    let nullable: Vec<String> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(property, p)| {
                    !OMITTED_WHEN_EMPTY.contains(&(name, property.as_str())) && accepts_null(p)
                })
                .map(|(property, _)| property.clone())
                .collect()
        })
        .unwrap_or_default();
    if nullable.is_empty() || REQUEST_BODIES.contains(&name) {
        return;
    }
    let required = schema
        .as_object_mut()
        .map(|s| s.entry("required").or_insert_with(|| json!([])));
    if let Some(Value::Array(required)) = required {
        for property in nullable {
            if !required.iter().any(|r| r == &json!(property)) {
                required.push(json!(property));
            }
        }
    }
}

fn accepts_null(property: &Value) -> bool {
    let null = json!("null");
    match property.get("type") {
        Some(Value::Array(types)) => types.contains(&null),
        _ => property
            .get("oneOf")
            .and_then(Value::as_array)
            .is_some_and(|alternatives| alternatives.iter().any(|a| a["type"] == null)),
    }
}

fn add_links(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operation in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
    {
        let id = operation["operationId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        for (_, status, target) in LINKS.iter().filter(|(from, _, _)| *from == id) {
            if let Some(response) = operation.pointer_mut(&format!("/responses/{status}")) {
                response["links"][*target] = json!({
                    "operationId": target,
                    "parameters": { "id": "$response.body#/id" }
                });
            }
        }
    }
}

fn add_security_schemes(doc: &mut Value) {
    let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) else {
        return;
    };
    components.insert(
        "securitySchemes".to_string(),
        json!({
            TOKEN_SCHEME: {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "`Token <key>`: the token from POST /api/auth/login/ or /api/auth/token/."
            },
            SESSION_SCHEME: {
                "type": "apiKey",
                "in": "cookie",
                "name": crate::auth::cookies::SESSION_COOKIE,
                "description": "The session cookie set at login. Unsafe methods must also send the `csrftoken` cookie's value in `X-CSRFToken`."
            }
        }),
    );
}

/// The operation id (`<tag>_<handler>`), security and shared error answers of one operation.
fn finish_operation(method: &str, path: &str, operation: &mut Value) {
    let Some(op) = operation.as_object_mut() else {
        return;
    };
    let tag = op
        .get("tags")
        .and_then(|t| t.get(0))
        .and_then(Value::as_str)
        .unwrap_or("api")
        .replace('-', "_");
    if let Some(id) = op.get("operationId").and_then(Value::as_str) {
        if !id.starts_with(&format!("{tag}_")) {
            op.insert("operationId".into(), json!(format!("{tag}_{id}")));
        }
    }
    let public = PUBLIC_ROUTES.contains(&(method, path));
    if public {
        op.insert("security".into(), json!([]));
    } else {
        op.insert(
            "security".into(),
            json!([{ TOKEN_SCHEME: [] }, { SESSION_SCHEME: [] }]),
        );
    }
    for parameter in op
        .get_mut("parameters")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        allow_empty_optional_date(parameter);
    }
    let has_params = op
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|p| !p.is_empty());
    let has_path_params = path.contains('{');
    let has_body = op.contains_key("requestBody");
    let unsafe_method = matches!(method, "post" | "put" | "patch" | "delete");
    let mut shared: Vec<(&str, &str)> = Vec::new();
    if has_params || has_body {
        shared.push(("400", "The request is malformed or a field is invalid."));
    }
    if !public {
        shared.push(("401", "No valid token or session."));
        if unsafe_method {
            shared.push(("403", "A session's request without its CSRF token."));
        }
    }
    if has_path_params {
        shared.push(("404", "No such resource of this user."));
    }
    if has_body {
        shared.push(("413", "The body is larger than the server accepts."));
        shared.push(("415", "The body is not sent as application/json."));
    }
    if path != "/api/openapi.json" {
        shared.push((
            "503",
            "The database is unavailable; retry after `Retry-After` seconds.",
        ));
    }
    let responses = op
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    let Some(responses) = responses else {
        return;
    };
    for (status, description) in shared {
        responses
            .entry(status)
            .or_insert_with(|| error_response(description));
    }
    for (status, response) in responses.iter_mut() {
        if status.starts_with('4') || status.starts_with('5') {
            complete_error_response(response);
        }
    }
}

/// An optional date parameter sent empty (`date_from=`) means no date, as a form sends it.
fn allow_empty_optional_date(parameter: &mut Value) {
    let optional = parameter["required"] != json!(true);
    if optional && parameter["schema"]["format"] == "date" {
        parameter["schema"] = json!({
            "type": "string",
            "anyOf": [{ "format": "date" }, { "pattern": "^[ \\t\\r\\n]*$" }]
        });
    }
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } } }
    })
}

/// An error answer written in a route's annotation without a body gets `ErrorBody`, which is
/// what every error answer carries.
fn complete_error_response(response: &mut Value) {
    let Some(r) = response.as_object_mut() else {
        return;
    };
    if !r.contains_key("content") {
        let description = r
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        *response = error_response(&description);
    }
}

/// Puts the validation bounds on `BotSettings` and writes `SettingsInput` from it.
fn finish_settings_schemas(schemas: &mut Map<String, Value>) {
    let Some(settings) = schemas.get_mut("BotSettings") else {
        return;
    };
    if let Some(properties) = settings
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        for (field, bound) in SETTINGS_BOUNDS {
            match properties.get_mut(field).and_then(Value::as_object_mut) {
                // A reference (`bot_mode`'s enum) is bounded by what it refers to.
                Some(property) if !property.contains_key("$ref") => apply_bound(property, bound),
                _ => {}
            }
        }
        if let Some(hours) = properties.get_mut("forbidden_hours") {
            let hour = json!({ "type": "integer", "minimum": 0, "maximum": 23 });
            hours["items"] = json!({
                "type": "array",
                "description": "[start, end): whole hours in the user's zone; start and end differ.",
                "prefixItems": [hour, hour],
                "items": false,
                "minItems": 2,
                "maxItems": 2,
                "uniqueItems": true
            });
        }
        if let Some(zone) = properties.get_mut("user_timezone") {
            zone["enum"] = json!(time_zone_names().collect::<Vec<_>>());
        }
        if let Some(days) = properties.get_mut("forbidden_days") {
            days["items"] = json!({ "type": "integer", "minimum": 0, "maximum": 6 });
            days["uniqueItems"] = json!(true);
        }
    }
    let mut input = settings.clone();
    if let Some(input) = input.as_object_mut() {
        input.remove("required");
        input.insert(
            "description".into(),
            json!("Any of the settings; those left out keep their current value. `trail_activation_pct` null means its default (1.0); `telegram_id` null means none."),
        );
        if let Some(properties) = input.get_mut("properties").and_then(Value::as_object_mut) {
            for nullable in ["trail_activation_pct", "telegram_id"] {
                if let Some(ty) = properties.get_mut(nullable).and_then(|p| p.get_mut("type")) {
                    *ty = json!([ty.clone(), "null"]);
                }
            }
        }
    }
    schemas.insert("SettingsInput".to_string(), input);
}

fn apply_bound(property: &mut Map<String, Value>, bound: Bound) {
    match bound {
        Bound::Count { min, max } => {
            property.insert("minimum".into(), json!(min));
            property.insert("maximum".into(), json!(max));
        }
        Bound::Amount {
            min,
            max,
            max_exclusive,
            step,
        } => {
            property.insert("minimum".into(), decimal(min));
            if let Some(step) = step {
                property.insert("multipleOf".into(), decimal(step));
            }
            let key = if max_exclusive {
                "exclusiveMaximum"
            } else {
                "maximum"
            };
            property.insert(key.into(), decimal(max));
        }
        Bound::Text { max_chars } => {
            property.insert("maxLength".into(), json!(max_chars));
        }
        Bound::List { max_items } => {
            property.insert("maxItems".into(), json!(max_items));
        }
    }
}

fn decimal(d: rust_decimal::Decimal) -> Value {
    use rust_decimal::prelude::ToPrimitive;
    json!(d.to_f64().unwrap_or_default())
}
