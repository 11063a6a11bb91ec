// Extension: how long a scheduled job waits for its stream and how often it looks (LIVE_WAIT_MAX_SECONDS, LIVE_PROBE_*).
import { Config, Context, Effect, Layer } from "effect"
import type { LiveWaitSettings } from "../domain/job/JobSchedule.ts"
import { secondsAsMs, wholeSecondsAsMs } from "./Seconds.ts"

export class LiveWait extends Context.Service<LiveWait, LiveWaitSettings>()("mds/config/LiveWait") {
  static readonly config = Config.all({
    /** A stream that has not begun this long after the download was asked for fails live_not_started. */
    waitMaxMs: wholeSecondsAsMs("LIVE_WAIT_MAX_SECONDS", 7 * 24 * 3600),
    /** The probe interval's floor: 60 s; tests lower it (it may have a fraction). */
    probeMinMs: secondsAsMs("LIVE_PROBE_MIN_SECONDS", 60),
    /** The probe interval's ceiling: a stream far ahead is looked at this often. */
    probeMaxMs: secondsAsMs("LIVE_PROBE_MAX_SECONDS", 3600)
  })

  static readonly layer = Layer.effect(LiveWait, Effect.map(LiveWait.config, LiveWait.of))
}
