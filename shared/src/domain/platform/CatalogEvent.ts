// Published by extractor workers at start (mds.catalog.extractors): what the installed yt-dlp can extract.
import { Schema } from "effect"

export const ExtractorCatalogPublished = Schema.TaggedStruct("ExtractorCatalogPublished", {
  v: Schema.Literal(1),
  ytDlpVersion: Schema.String,
  extractors: Schema.Array(Schema.String),
  at: Schema.Number
})
export type ExtractorCatalogPublished = typeof ExtractorCatalogPublished.Type
