// Published by extractor workers at start (mds.catalog.extractors): what the installed yt-dlp can extract.
import { Schema } from "effect"

/** One extractor of yt-dlp: its key (the info's extractor_key), its name (IE_NAME), description, and whether it works. */
export const ExtractorInfo = Schema.Struct({
  key: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  /** yt-dlp marks extractors it knows to be broken (`--list-extractors` says "CURRENTLY BROKEN"). */
  working: Schema.Boolean
})
export type ExtractorInfo = typeof ExtractorInfo.Type

/** Version 1: the raw lines of `yt-dlp --list-extractors` (names only, broken ones marked in the text). */
export const ExtractorCatalogPublishedV1 = Schema.TaggedStruct("ExtractorCatalogPublished", {
  v: Schema.Literal(1),
  ytDlpVersion: Schema.String,
  extractors: Schema.Array(Schema.String),
  at: Schema.Number
})

/** Version 2: every extractor with its key, name and working flag, read from yt-dlp itself. */
export const ExtractorCatalogPublishedV2 = Schema.TaggedStruct("ExtractorCatalogPublished", {
  v: Schema.Literal(2),
  ytDlpVersion: Schema.String,
  extractors: Schema.Array(ExtractorInfo),
  at: Schema.Number
})

export const ExtractorCatalogPublished = Schema.Union([ExtractorCatalogPublishedV1, ExtractorCatalogPublishedV2])
export type ExtractorCatalogPublished = typeof ExtractorCatalogPublished.Type

const BROKEN_MARK = /\s*\(CURRENTLY BROKEN\)\s*$/

/** Extractors of either version; a version-1 line's name stands in for its key. */
export const catalogExtractors = (event: ExtractorCatalogPublished): ReadonlyArray<ExtractorInfo> =>
  event.v === 2
    ? event.extractors
    : event.extractors.map((line) => {
        const name = line.replace(BROKEN_MARK, "").trim()
        return { key: name, name, description: null, working: !BROKEN_MARK.test(line) }
      })
