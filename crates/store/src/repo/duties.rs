//! Jobs one instance of a deployment does for everyone (migration 0023), leased like a bot
//! (`repo::leases`): only a registered process takes one. Times are the database's clock.

use sqlx::Row;

use crate::repo::instances::registered;
use crate::repo::leases::LeaseHolder;
use crate::{Store, StoreError};

impl Store {
    /// Takes or renews duty `duty` for `holder` for `ttl_ms` when nobody holds it, it ran
    /// out, it is `holder`'s, or a dead predecessor of the same instance id holds it; false
    /// while another process does.
    pub async fn take_duty(
        &self,
        duty: &str,
        holder: &LeaseHolder,
        ttl_ms: i64,
    ) -> Result<bool, StoreError> {
        let now = self.clock_ms();
        let registered = registered("$3", "$2");
        let sql = format!(
            "INSERT INTO duty_leases (duty, owner, instance, expires_at)
             SELECT $1, $2, $3, {now} + $4 WHERE {registered}
             ON CONFLICT (duty) DO UPDATE SET
                 owner = excluded.owner,
                 instance = excluded.instance,
                 expires_at = excluded.expires_at
             WHERE duty_leases.owner = excluded.owner
                OR duty_leases.instance = excluded.instance
                OR duty_leases.expires_at < {now}
             RETURNING duty"
        );
        let row = sqlx::query(&sql)
            .bind(duty)
            .bind(&holder.process)
            .bind(&holder.instance)
            .bind(ttl_ms)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row
            .map(|r| r.try_get::<String, _>("duty"))
            .transpose()?
            .is_some())
    }
}
