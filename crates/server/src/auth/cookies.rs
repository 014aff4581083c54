//! The session cookie (HttpOnly) and the `csrftoken` cookie (readable by the app).

use axum::http::HeaderMap;

pub const SESSION_COOKIE: &str = "sessionid";
pub const CSRF_COOKIE: &str = "csrftoken";
pub const CSRF_HEADER: &str = "x-csrftoken";

/// The value of cookie `name` in the request's Cookie headers.
pub fn get<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// A `Set-Cookie` value. `max_age_secs == 0` deletes the cookie.
pub fn set(name: &str, value: &str, http_only: bool, secure: bool, max_age_secs: u64) -> String {
    let mut cookie = format!("{name}={value}; Path=/; SameSite=Lax; Max-Age={max_age_secs}");
    if http_only {
        cookie.push_str("; HttpOnly");
    }
    if secure {
        cookie.push_str("; Secure");
    }
    cookie
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn reads_a_cookie_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "cookie",
            HeaderValue::from_static("a=1; sessionid=abc ; csrftoken=x"),
        );
        assert_eq!(get(&headers, SESSION_COOKIE), Some("abc"));
        assert_eq!(get(&headers, CSRF_COOKIE), Some("x"));
        assert_eq!(get(&headers, "missing"), None);
    }

    #[test]
    fn builds_set_cookie() {
        assert_eq!(
            set("sessionid", "v", true, true, 10),
            "sessionid=v; Path=/; SameSite=Lax; Max-Age=10; HttpOnly; Secure"
        );
    }
}
