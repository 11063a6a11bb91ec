// The extractor catalogue's door: what the installed yt-dlp can extract, once per yt-dlp version and list.
import { createHash } from "node:crypto"
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { EXTRACTOR_CATALOG_SUBJECT } from "../../nats/Subjects.ts"
import { ExtractorCatalogPublished } from "../../domain/platform/CatalogEvent.ts"

/** Extractors of one yt-dlp version publishing the same list record it once. */
const recordCatalog = factRecorder({
  codec: ExtractorCatalogPublished,
  msgId: (event) =>
    `${event.ytDlpVersion}:v${event.v}:${createHash("sha256").update(JSON.stringify(event.extractors)).digest("hex").slice(0, 16)}`
})

export const recordExtractorCatalog = (published: ExtractorCatalogPublished) => recordCatalog(EXTRACTOR_CATALOG_SUBJECT, published)
