//! `WebError`: the one error type of the dashboard and its status table.
//!
//! | variant      | status | body                                             |
//! |--------------|--------|--------------------------------------------------|
//! | `BadParam`   | 400    | which parameter and what is wrong with it        |
//! | `NotFound`   | 404    | what was not found                               |
//! | `Internal`   | 500    | a fixed sentence; the cause goes to the log only |
//!
//! Pages answer with an HTML error page, the JSON API (through `ApiError`)
//! with `{"error": ...}`.

use super::layout::{Chrome, ErrorPage};
use crate::report::ReportError;
use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Json, Response};
use serde_json::json;

/// Every way a dashboard request fails.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// An invalid query or path parameter: 400 with the message.
    #[error("invalid parameter {name}: {message}")]
    BadParam { name: &'static str, message: String },
    /// An unknown session, day or page: 404.
    #[error("{0} not found")]
    NotFound(String),
    /// Anything else: 500; the message is logged, never sent.
    #[error("internal error: {0}")]
    Internal(String),
}

const INTERNAL_MESSAGE: &str = "Something went wrong on the server; the details are in its log.";

impl WebError {
    /// A 400 for parameter `name`.
    pub fn bad(name: &'static str, message: impl Into<String>) -> WebError {
        WebError::BadParam { name, message: message.into() }
    }

    /// The status of this error (the table above).
    pub fn status(&self) -> StatusCode {
        match self {
            WebError::BadParam { .. } => StatusCode::BAD_REQUEST,
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the client is told; internal details are never included.
    pub fn public_message(&self) -> String {
        match self {
            WebError::Internal(_) => INTERNAL_MESSAGE.to_owned(),
            other => other.to_string(),
        }
    }

    fn log(&self) {
        if let WebError::Internal(m) = self {
            tracing::error!("{m}");
        }
    }
}

impl From<ReportError> for WebError {
    fn from(e: ReportError) -> WebError {
        match e {
            ReportError::UnknownSession(s) => WebError::NotFound(format!("session {s:?}")),
            e @ ReportError::AmbiguousSession { .. } => WebError::bad("id", e.to_string()),
            e => WebError::Internal(e.to_string()),
        }
    }
}

impl From<tokio::task::JoinError> for WebError {
    fn from(e: tokio::task::JoinError) -> WebError {
        WebError::Internal(format!("background task failed: {e}"))
    }
}

impl From<askama::Error> for WebError {
    fn from(e: askama::Error) -> WebError {
        WebError::Internal(format!("template: {e}"))
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        self.log();
        let status = self.status();
        let page = ErrorPage {
            chrome: Chrome::plain(),
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or(""),
            message: self.public_message(),
        };
        match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => (status, self.public_message()).into_response(),
        }
    }
}

/// A `WebError` answered as JSON, for `/api/*`.
#[derive(Debug)]
pub struct ApiError(pub WebError);

impl From<WebError> for ApiError {
    fn from(e: WebError) -> ApiError {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.0.log();
        (self.0.status(), Json(json!({ "error": self.0.public_message() }))).into_response()
    }
}
