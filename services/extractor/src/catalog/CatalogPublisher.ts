// At start, records what the installed yt-dlp can extract (ExtractorCatalogPublished), once per version and list.
import { createHash } from "node:crypto"
import { Clock, Effect, Layer } from "effect"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT } from "@mds/shared/eventstore/Subjects"
import { YtDlp } from "../ytdlp/YtDlp.ts"

export const publishExtractorCatalog = Effect.gen(function*() {
  const ytdlp = yield* YtDlp
  const store = yield* EventStore
  const ytDlpVersion = yield* ytdlp.version
  const extractors = yield* ytdlp.listExtractors
  const last = yield* store.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT)
  if (
    last._tag === "Some" && last.value.event.ytDlpVersion === ytDlpVersion &&
    last.value.event.extractors.join("\n") === extractors.join("\n")
  ) {
    yield* Effect.logInfo("extractor catalog unchanged", { ytDlpVersion, extractors: extractors.length })
    return
  }
  const digest = createHash("sha256").update(extractors.join("\n")).digest("hex").slice(0, 16)
  const appended = yield* store.append(
    ExtractorCatalogPublished,
    EXTRACTOR_CATALOG_SUBJECT,
    { _tag: "ExtractorCatalogPublished", v: 1, ytDlpVersion, extractors, at: yield* Clock.currentTimeMillis },
    { msgId: `${ytDlpVersion}:${digest}` }
  )
  yield* Effect.logInfo("extractor catalog published", {
    ytDlpVersion,
    extractors: extractors.length,
    duplicate: appended.duplicate
  })
})

export const CatalogPublisher = Layer.effectDiscard(publishExtractorCatalog)
