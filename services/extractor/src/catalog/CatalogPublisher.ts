// At start, records what the installed yt-dlp can extract (ExtractorCatalogPublished v2), once per yt-dlp version.
import { Clock, Effect, Layer } from "effect"
import { recordExtractorCatalog } from "@mds/shared/application/platform/CatalogFacts"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT } from "@mds/shared/nats/Subjects"
import { YtDlpPath } from "../ExtractorConfig.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { listExtractors } from "./listExtractors.ts"

/** The list depends on the yt-dlp version only: a version already published (in this format) is not read again. */
export const publishExtractorCatalog = Effect.gen(function* () {
  const ytdlp = yield* YtDlp
  const store = yield* EventStore
  const ytDlpVersion = yield* ytdlp.version
  const last = yield* store.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT)
  if (last._tag === "Some" && last.value.event.v === 2 && last.value.event.ytDlpVersion === ytDlpVersion) {
    yield* Effect.logInfo("extractor catalog unchanged", { ytDlpVersion, extractors: last.value.event.extractors.length })
    return
  }
  const extractors = yield* listExtractors(yield* YtDlpPath, ytdlp, yield* Confinement)
  const appended = yield* recordExtractorCatalog({
    _tag: "ExtractorCatalogPublished",
    v: 2,
    ytDlpVersion,
    extractors,
    at: yield* Clock.currentTimeMillis
  })
  yield* Effect.logInfo("extractor catalog published", {
    ytDlpVersion,
    extractors: extractors.length,
    duplicate: appended.duplicate
  })
})

export const CatalogPublisher = Layer.effectDiscard(publishExtractorCatalog)
