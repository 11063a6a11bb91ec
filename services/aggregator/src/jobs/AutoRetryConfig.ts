// The automatic retries' settings: what the retries reactor acts on and what the batch feeder waits for.
import { Config } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"

export const AutoRetryConfig = Config.all({
  maxRetries: Config.Int("JOB_AUTO_RETRIES").pipe(Config.withDefault(2)),
  backoffMs: secondsAsMs("JOB_RETRY_BACKOFF_SECONDS", 10),
  /** How often the jobs whose last event is a failure are looked at again, for what a lost wake-up hid. */
  reconcileMs: secondsAsMs("JOB_RETRY_RECONCILE_INTERVAL_SECONDS", 300)
})
