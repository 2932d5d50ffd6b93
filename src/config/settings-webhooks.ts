import { int, text } from './setting-kinds.js'

/** Webhooks: the key of their secrets, and how each server process delivers them (docs/api/webhooks.md). */
export const WEBHOOK_SETTINGS = {
  LINKLINE_WEBHOOKS_SECRET_KEY: text({
    group: 'Webhooks',
    common: true,
    meaning:
      'at least 32 characters (e.g. `openssl rand -base64 32`): the key that encrypts webhook signing secrets at rest; unset, the ' +
      'first start creates the key file `linkline.key` (see `LINKLINE_DATA_DIR`). Keep it (or the file) with your backups: losing it ' +
      'breaks every existing endpoint',
    scaleOut: 'the same on every instance (a secret sealed by one is opened by another); see [Webhooks](#webhooks)',
  }),
  LINKLINE_DATA_DIR: text({
    group: 'Webhooks',
    derived: 'beside the SQLite file; `./data` with PostgreSQL; `/data` in the image',
    meaning: 'where the webhook secret key file `linkline.key` is created at the first start (mode 0600) when `LINKLINE_WEBHOOKS_SECRET_KEY` is unset',
  }),
  LINKLINE_WEBHOOKS_POLL_INTERVAL_MS: int({
    group: 'Webhooks',
    default: 1000,
    min: 10,
    max: 60_000,
    meaning: 'how often each server process looks for due webhook deliveries (a change made on the same process wakes it at once)',
    scaleOut: 'instances share the work (SKIP LOCKED)',
  }),
  LINKLINE_WEBHOOKS_LEASE_MS: int({
    group: 'Webhooks',
    default: 120_000,
    min: 1000,
    max: 3_600_000,
    meaning:
      'how long a claimed delivery attempt is held before it is due again: an attempt cut off by a crash (`kill -9`, a lost ' +
      'machine) is retried this long after it started. Keep it well past the 10 s delivery timeout, or an attempt still running ' +
      'may be made twice',
    scaleOut: 'the same on every instance',
  }),
  LINKLINE_WEBHOOKS_RETENTION_DAYS: int({
    group: 'Webhooks',
    default: 30,
    min: 1,
    max: 36_500,
    meaning: 'settled deliveries (delivered or failed) older than this are pruned hourly from the delivery log; pending ones stay',
  }),
} as const
