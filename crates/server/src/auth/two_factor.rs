//! `/api/auth/2fa/…`: setting up, turning on and off two-factor login (TOTP), and the check
//! the login makes (docs/security.md, "Two-factor login"). A wrong code counts as a failed
//! login in the login limits, wherever it is typed; the secret is answered only by the
//! set-up and the recovery codes only by the enable.

use axum::extract::State;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::json;
use signaldesk_store::{AuditAction, StoreError, User};
use utoipa::ToSchema;

use crate::app::{now_ms, AppState};
use crate::audit_log::Audit;
use crate::auth::{totp, AuthUser};
use crate::error::{ApiError, ApiJson, ApiResult, ErrorBody, FieldErrors};

pub const CODE_NEEDED: &str = "Enter the code from your authenticator app.";
pub const WRONG_CODE: &str = "Invalid or already used code.";
const ALREADY_ON: &str = "Two-factor login is already on. Turn it off first to set it up again.";
const SET_UP_FIRST: &str = "Set up two-factor login first.";
const IS_OFF: &str = "Two-factor login is off.";

/// What the login found of the second factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginFactor {
    /// The user's 2FA is off.
    NotNeeded,
    Missing,
    Refused,
    Accepted,
}

/// Which codes a check takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accepts {
    TotpOnly,
    TotpOrRecovery,
}

/// Whether `typed` is a current code of the secret not used before, or (when accepted) an
/// unused recovery code of the user; either is spent by the check.
async fn code_is_good(
    state: &AppState,
    user_id: i64,
    secret: &str,
    typed: &str,
    accepts: Accepts,
) -> ApiResult<bool> {
    if let Some(code) = totp::normalise_code(typed) {
        let now_step = totp::step_at(now_ms().div_euclid(1000));
        for step in totp::matching_steps(secret, &code, now_step) {
            if state.store.use_totp_step(user_id, step).await? {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    if accepts == Accepts::TotpOrRecovery {
        if let Some(code) = totp::normalise_recovery_code(typed) {
            let digest = totp::recovery_code_digest(user_id, &code);
            let used = state
                .store
                .use_recovery_code(user_id, &digest, now_ms())
                .await?;
            if used {
                tracing::info!(user_id, "recovery code used");
            }
            return Ok(used);
        }
    }
    Ok(false)
}

/// The second factor of a login whose password was right.
pub async fn check_login(
    state: &AppState,
    user: &User,
    otp: Option<&str>,
) -> ApiResult<LoginFactor> {
    let Some(record) = state.store.totp(&state.cipher, user.id).await? else {
        return Ok(LoginFactor::NotNeeded);
    };
    if !record.enabled {
        return Ok(LoginFactor::NotNeeded);
    }
    let Some(otp) = otp else {
        return Ok(LoginFactor::Missing);
    };
    let good = code_is_good(state, user.id, &record.secret, otp, Accepts::TotpOrRecovery).await?;
    Ok(if good {
        LoginFactor::Accepted
    } else {
        LoginFactor::Refused
    })
}

#[derive(Serialize, ToSchema)]
pub struct TwoFactorSetup {
    /// The TOTP secret in base32, to type into an authenticator app.
    pub secret: String,
    /// The same secret as an `otpauth://totp/…` URL, for a QR code.
    pub otpauth_url: String,
}

#[derive(Deserialize, ToSchema)]
pub struct TwoFactorCode {
    /// A 6-digit code of the authenticator app (to disable: or a recovery code).
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 64)]
    pub code: String,
}

#[derive(Serialize, ToSchema)]
pub struct TwoFactorEnabled {
    pub two_factor_enabled: bool,
    /// Ten one-time recovery codes: shown this once, stored only as digests.
    pub recovery_codes: Vec<String>,
}

#[derive(Serialize, ToSchema)]
pub struct TwoFactorDisabled {
    pub two_factor_enabled: bool,
}

fn code_error(message: &str) -> ApiError {
    let mut fields = FieldErrors::new();
    fields.insert("code".into(), vec![message.into()]);
    ApiError::validation(fields)
}

/// Checks the code of an enable or disable under the login limits of the caller's username
/// and address: a stolen session cannot guess codes faster than a login could.
async fn checked_code(
    state: &AppState,
    auth: &AuthUser,
    client: std::net::IpAddr,
    secret: &str,
    code: &str,
    accepts: Accepts,
) -> ApiResult<()> {
    let code = code.trim();
    if code.is_empty() {
        return Err(code_error(CODE_NEEDED));
    }
    let username = auth.user.username.as_str();
    state.limits.login_check(username, client).await?;
    if code_is_good(state, auth.id(), secret, code, accepts).await? {
        state.limits.login_succeeded(username, client).await?;
        Ok(())
    } else {
        state.limits.login_failed(username, client).await?;
        tracing::info!(%client, user_id = auth.id(), "wrong two-factor code");
        Err(code_error(WRONG_CODE))
    }
}

/// Starts setting up two-factor login: a new secret, off until a code of it is confirmed
/// by `enable`. Asking again replaces a secret not confirmed yet.
#[utoipa::path(post, path = "/api/auth/2fa/setup/", tag = "auth", operation_id = "two_factor_setup",
    responses((status = 200, body = TwoFactorSetup), (status = 409, body = ErrorBody)))]
pub async fn setup(
    State(state): State<AppState>,
    auth: AuthUser,
) -> ApiResult<Json<TwoFactorSetup>> {
    let secret = totp::new_secret();
    match state
        .store
        .begin_totp_setup(&state.cipher, auth.id(), &secret, now_ms())
        .await
    {
        Err(StoreError::Conflict(_)) => return Err(ApiError::conflict(ALREADY_ON)),
        other => other?,
    }
    tracing::info!(user_id = auth.id(), "two-factor set-up started");
    Ok(Json(TwoFactorSetup {
        otpauth_url: totp::otpauth_url(&auth.user.username, &secret),
        secret,
    }))
}

/// Turns two-factor login on with a current code of the secret from `setup`, and answers
/// the recovery codes, once.
#[utoipa::path(post, path = "/api/auth/2fa/enable/", tag = "auth", operation_id = "two_factor_enable",
    request_body = TwoFactorCode,
    responses((status = 200, body = TwoFactorEnabled), (status = 400, body = ErrorBody),
              (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub async fn enable(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiJson(body): ApiJson<TwoFactorCode>,
) -> ApiResult<Json<TwoFactorEnabled>> {
    let record = state
        .store
        .totp(&state.cipher, auth.id())
        .await?
        .ok_or_else(|| ApiError::conflict(SET_UP_FIRST))?;
    if record.enabled {
        return Err(ApiError::conflict(ALREADY_ON));
    }
    let client = audit.client();
    checked_code(
        &state,
        &auth,
        client,
        &record.secret,
        &body.code,
        Accepts::TotpOnly,
    )
    .await?;
    let codes: Vec<String> = (0..totp::RECOVERY_CODES)
        .map(|_| totp::new_recovery_code())
        .collect();
    let digests: Vec<String> = codes
        .iter()
        .filter_map(|c| totp::normalise_recovery_code(c))
        .map(|c| totp::recovery_code_digest(auth.id(), &c))
        .collect();
    if !state.store.enable_totp(auth.id(), &digests).await? {
        return Err(ApiError::conflict(SET_UP_FIRST));
    }
    tracing::info!(user_id = auth.id(), "two-factor login turned on");
    audit
        .record(Some(auth.id()), AuditAction::TwoFactorEnabled, json!({}))
        .await;
    Ok(Json(TwoFactorEnabled {
        two_factor_enabled: true,
        recovery_codes: codes,
    }))
}

/// Turns two-factor login off, with a current code or a recovery code.
#[utoipa::path(post, path = "/api/auth/2fa/disable/", tag = "auth", operation_id = "two_factor_disable",
    request_body = TwoFactorCode,
    responses((status = 200, body = TwoFactorDisabled), (status = 400, body = ErrorBody),
              (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
pub async fn disable(
    State(state): State<AppState>,
    audit: Audit,
    auth: AuthUser,
    ApiJson(body): ApiJson<TwoFactorCode>,
) -> ApiResult<Json<TwoFactorDisabled>> {
    let record = state
        .store
        .totp(&state.cipher, auth.id())
        .await?
        .filter(|r| r.enabled)
        .ok_or_else(|| ApiError::conflict(IS_OFF))?;
    let client = audit.client();
    checked_code(
        &state,
        &auth,
        client,
        &record.secret,
        &body.code,
        Accepts::TotpOrRecovery,
    )
    .await?;
    state.store.disable_totp(auth.id()).await?;
    tracing::info!(user_id = auth.id(), "two-factor login turned off");
    audit
        .record(Some(auth.id()), AuditAction::TwoFactorDisabled, json!({}))
        .await;
    Ok(Json(TwoFactorDisabled {
        two_factor_enabled: false,
    }))
}
