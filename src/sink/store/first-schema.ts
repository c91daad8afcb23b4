import type { Dialect } from './dialect.js';

/**
 * Schema version 1 of both engines (each one's migration 1), written once over the dialect. It has
 * shipped: never edit it, add a migration. SQLite keeps the text of each CREATE statement as its
 * schema, so the text stays as it was to the byte, the columns' alignment included.
 */

/** A type followed by constraints, padded so that the constraints line up (INTEGER is the widest). */
const typed = (type: string) => type.padEnd(7);

function historyTables(d: Dialect): string {
  const big = typed(d.bigint);
  return `
  CREATE TABLE notifications (
    id               ${big} ${d.identity},
    dedup_key        TEXT    NOT NULL UNIQUE,
    received_at      ${big} NOT NULL,
    receiver         TEXT    NOT NULL,
    status           TEXT    NOT NULL,
    group_key        TEXT    NOT NULL,
    alert_count      INTEGER NOT NULL,
    truncated_alerts INTEGER NOT NULL,
    duplicates       INTEGER NOT NULL DEFAULT 0,
    body             TEXT    NOT NULL
  );
  CREATE INDEX notifications_by_time ON notifications (received_at, id);
  CREATE INDEX notifications_by_receiver ON notifications (receiver, received_at, id);

  CREATE TABLE alerts (
    fingerprint    TEXT    PRIMARY KEY,
    alertname      TEXT    NOT NULL,
    severity       TEXT    NOT NULL,
    state          TEXT    NOT NULL,
    labels         TEXT    NOT NULL,
    annotations    TEXT    NOT NULL,
    generator_url  TEXT    NOT NULL,
    receiver       TEXT    NOT NULL,
    starts_at      ${big} NOT NULL,
    ends_at        ${d.bigint},
    first_seen_at  ${big} NOT NULL,
    last_seen_at   ${big} NOT NULL,
    last_firing_at ${d.bigint},
    notifications  INTEGER NOT NULL
  );
  CREATE INDEX alerts_by_state ON alerts (state, severity);
  CREATE INDEX alerts_by_name ON alerts (alertname, last_firing_at);
  CREATE INDEX alerts_by_last_seen ON alerts (last_seen_at);

  CREATE TABLE transitions (
    id              ${big} ${d.identity},
    fingerprint     TEXT    NOT NULL,
    state           TEXT    NOT NULL,
    at              ${big} NOT NULL,
    starts_at       ${big} NOT NULL,
    ends_at         ${d.bigint},
    notification_id ${big} NOT NULL
  );
  CREATE INDEX transitions_by_alert ON transitions (fingerprint, id);
  CREATE INDEX transitions_by_time ON transitions (at);
`;
}

function receiverStats(d: Dialect): string {
  const big = typed(d.bigint);
  return `
  -- Counters behind vigil_alertsink_*_total: kept apart from the rows retention deletes.
  CREATE TABLE receiver_stats (
    receiver             TEXT    PRIMARY KEY,
    firing               ${big} NOT NULL DEFAULT 0,
    resolved             ${big} NOT NULL DEFAULT 0,
    duplicates           ${big} NOT NULL DEFAULT 0,
    truncated_alerts     ${big} NOT NULL DEFAULT 0,
    last_notification_at ${d.bigint}
  );
  `;
}

/** Schema version 1 spelled for `d`, with `ownTables` (the DDL of tables only that engine keeps) before receiver_stats. */
export const firstSchema = (d: Dialect, ownTables = ''): string => `${historyTables(d)}${ownTables}${receiverStats(d)}`;
