// Extension: how often at most a destination's media server is asked to refresh its libraries (a burst of deliveries
// within the window is one refresh at its end).
import { Config } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"

export const LibraryRefreshConfig = Config.all({
  debounceMs: secondsAsMs("LIBRARY_REFRESH_DEBOUNCE_SECONDS", 60)
})
