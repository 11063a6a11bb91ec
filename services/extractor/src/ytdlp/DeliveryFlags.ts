// Extension: the yt-dlp flags of a job with a destination: the whole info printed once the file is in place (the
// path template's fields, the NFO's and info.json's content), the sidecar files written beside the media, and the
// metadata and chapters embedded where the container holds them.
import type { DeliveryOrder } from "@mds/shared/domain/delivery/DeliveryOrder"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { DELIVERY_RESULT_MARKER, INFO_PRINT, type YtDlpFlags } from "./YtDlpFlags.ts"

/** Added after every other flag: `print` replaces the run's result line with the whole info. */
export const deliveryFlags = (order: DeliveryOrder | undefined, spec: FormatSpec, options: DownloadOptions | undefined): YtDlpFlags => {
  if (order === undefined) return {}
  const wantsThumbnail = order.sidecars.includes("thumbnail") || order.sidecars.includes("nfo")
  const subtitles = order.sidecars.includes("subtitles") ? (options?.subtitles ?? []) : []
  return {
    print: [INFO_PRINT, `after_move:${DELIVERY_RESULT_MARKER} %()j`],
    // A library reads the title, date and chapters from the file too; webm takes metadata but not every tag.
    embedMetadata: true,
    ...(spec.kind === "video" && options?.container !== "webm" ? { embedChapters: true } : {}),
    ...(wantsThumbnail ? { writeThumbnail: true, convertThumbnails: "jpg" } : {}),
    ...(subtitles.length > 0 ? { writeSubs: true, subLangs: subtitles.join(","), subFormat: "vtt/best" } : {})
  }
}
