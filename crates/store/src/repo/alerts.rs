//! Alerts (docs/alerts.md): one row per raise, open while `cleared_at` is NULL. A partial
//! unique index keeps at most one open alert of a kind per user, so raising twice (a second
//! instance, a restart) writes nothing the second time.

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::{Store, StoreError};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AlertRecord {
    pub id: i64,
    #[serde(skip)]
    pub user_id: i64,
    pub kind: String,
    pub detail: String,
    pub action: String,
    /// Unix ms.
    pub raised_at: i64,
    /// Unix ms; `None` while raised.
    pub cleared_at: Option<i64>,
}

const COLUMNS: &str = "id, user_id, kind, detail, action, raised_at, cleared_at";

fn alert_from_row(row: &AnyRow) -> Result<AlertRecord, StoreError> {
    Ok(AlertRecord {
        id: row.try_get("id")?,
        user_id: row.try_get("user_id")?,
        kind: row.try_get("kind")?,
        detail: row.try_get("detail")?,
        action: row.try_get("action")?,
        raised_at: row.try_get("raised_at")?,
        cleared_at: row.try_get("cleared_at")?,
    })
}

impl Store {
    /// Raises an alert of `kind` for the user; `None` when one of that kind is already open
    /// (nothing is written then).
    pub async fn raise_alert(
        &self,
        user_id: i64,
        kind: &str,
        detail: &str,
        action: &str,
        raised_at: i64,
    ) -> Result<Option<AlertRecord>, StoreError> {
        let sql = format!(
            "INSERT INTO alerts (user_id, kind, detail, action, raised_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT DO NOTHING RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(kind)
            .bind(detail)
            .bind(action)
            .bind(raised_at)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(alert_from_row).transpose()
    }

    /// The user's open alert of `kind`, if any.
    pub async fn open_alert(
        &self,
        user_id: i64,
        kind: &str,
    ) -> Result<Option<AlertRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM alerts WHERE user_id = $1 AND kind = $2 AND cleared_at IS NULL"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(kind)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(alert_from_row).transpose()
    }

    /// Clears the user's open alert of `kind`; answers it, or `None` when none was open.
    pub async fn clear_alert(
        &self,
        user_id: i64,
        kind: &str,
        cleared_at: i64,
    ) -> Result<Option<AlertRecord>, StoreError> {
        let sql = format!(
            "UPDATE alerts SET cleared_at = $3 WHERE user_id = $1 AND kind = $2 AND cleared_at IS NULL
             RETURNING {COLUMNS}"
        );
        let row = sqlx::query(&sql)
            .bind(user_id)
            .bind(kind)
            .bind(cleared_at)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(alert_from_row).transpose()
    }

    /// The user's open alerts (newest first), then the most recent cleared ones, `limit` in all.
    pub async fn recent_alerts(
        &self,
        user_id: i64,
        limit: i64,
    ) -> Result<Vec<AlertRecord>, StoreError> {
        let sql = format!(
            "SELECT {COLUMNS} FROM alerts WHERE user_id = $1
             ORDER BY CASE WHEN cleared_at IS NULL THEN 0 ELSE 1 END, raised_at DESC, id DESC
             LIMIT $2"
        );
        let rows = sqlx::query(&sql)
            .bind(user_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(alert_from_row).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[tokio::test]
    async fn an_alert_is_open_once_until_cleared() {
        let store = Store::in_memory().await.unwrap();
        let user = store.create_user("a", "h", 0).await.unwrap().id;
        let first = store.raise_alert(user, "lease_lost", "d", "a", 10).await;
        assert!(first.unwrap().is_some());
        let again = store.raise_alert(user, "lease_lost", "d", "a", 20).await;
        assert!(again.unwrap().is_none(), "a second raise writes nothing");
        let cleared = store.clear_alert(user, "lease_lost", 30).await.unwrap();
        assert_eq!(cleared.unwrap().cleared_at, Some(30));
        assert!(store
            .clear_alert(user, "lease_lost", 40)
            .await
            .unwrap()
            .is_none());
        let raised = store.raise_alert(user, "lease_lost", "d2", "a", 50).await;
        assert!(raised.unwrap().is_some(), "raised again after clearing");
        let recent = store.recent_alerts(user, 10).await.unwrap();
        assert_eq!(recent.len(), 2);
        assert_eq!(recent[0].cleared_at, None, "the open one comes first");
    }
}
