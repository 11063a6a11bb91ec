// Extension: the delivery reactor's settings: how long a failed delivery attempt waits before the next one, and how
// often the stored jobs are looked at again for what a lost wake-up hid.
import { Config } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"

/** `10,60,300`: seconds before each retry; a delivery is tried once more than the list is long, then the job fails. */
const retryDelays = Config.String("DELIVERY_RETRY_DELAYS").pipe(
  Config.withDefault("10,60,300"),
  Config.map((text) =>
    text
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "")
      .map((part) => Math.max(0, Number(part)) * 1000)
      .filter((ms) => Number.isFinite(ms))
  )
)

export const DeliveryConfig = Config.all({
  retryDelaysMs: retryDelays,
  reconcileMs: secondsAsMs("DELIVERY_RECONCILE_INTERVAL_SECONDS", 60)
})
