// The yt-dlp flag that downloads from an info JSON written at resolve time instead of extracting from the page.
import type { YtDlpFlags } from "./YtDlpFlags.ts"

/** With it yt-dlp takes no URL; format selection, limits and post-processing work as with a URL. */
export const loadInfoFlags = (infoPath: string): YtDlpFlags => ({ loadInfoJson: infoPath })
