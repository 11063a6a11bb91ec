// Sizes written for people (50GB, 1.5TiB, 500MB, 1048576): one parser for settings and the admin CLI.
import { Config, Schema } from "effect"

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1024 ** 4,
  tib: 1024 ** 4
}

/**
 * Whole bytes, or a message saying why not. Units are binary (1 GB = 1024^3 bytes), as MAX_FILE_SIZE_MB counts
 * megabytes; KiB/MiB/GiB/TiB are accepted as the same.
 */
export const parseByteSize = (text: string): number | string => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/iu.exec(text)
  const unit = UNITS[(match?.[2] ?? "").toLowerCase()]
  if (match === null || unit === undefined) return `"${text}" is not a size (e.g. 50GB, 500MB, 1048576)`
  const bytes = Math.floor(Number(match[1]) * unit)
  return Number.isSafeInteger(bytes) ? bytes : `"${text}" is too large`
}

const KB = 1024

/** A size for people: 50 GB, 1.5 MB, 512 B (binary units, as parseByteSize reads them). */
export const formatByteSize = (bytes: number): string => {
  const units = ["B", "KB", "MB", "GB", "TB"]
  let value = bytes
  let unit = 0
  while (value >= KB && unit < units.length - 1) {
    value /= KB
    unit++
  }
  const shown = unit === 0 || value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1)
  return `${shown} ${units[unit]}`
}

/** A size as a setting takes it (`1MB`, `65536`): a text parseByteSize reads. */
export const ByteSizeText = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = parseByteSize(text)
    return typeof parsed === "string" ? parsed : undefined
  })
)

/** A size setting, read as bytes; one that does not parse is a configuration error naming it. */
export const byteSizeConfig = (name: string, fallback: string) =>
  Config.schema(ByteSizeText, name).pipe(
    Config.withDefault(fallback),
    Config.map((text) => parseByteSize(text) as number)
  )
