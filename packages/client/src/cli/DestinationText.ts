// How `mds destinations` shows destinations and a test's outcome, and how `mds destinations add` reads its credentials:
// from the environment only, never from the command line (where other users of the machine could read them).
import type { CreateDestinationRequest, DestinationBody, DestinationTestResult } from "@mds/shared/api/Destinations"

export const ACCESS_KEY_ENV = "MDS_DESTINATION_ACCESS_KEY_ID"
export const SECRET_KEY_ENV = "MDS_DESTINATION_SECRET_ACCESS_KEY"

export const destinationText = (d: DestinationBody) =>
  d.type === "s3"
    ? `${d.id} s3     ${d.name}: ${d.endpoint}/${d.bucket}/${d.prefix ?? ""} (${d.region}, key ${d.access_key_id})\n`
    : `${d.id} folder ${d.name} (given by the operator)\n`

export const destinationsText = (all: ReadonlyArray<DestinationBody>) =>
  all.length === 0 ? "no destinations\n" : all.map(destinationText).join("")

export const testText = (result: DestinationTestResult) =>
  result.ok
    ? `ok: a probe object was written, found and removed (${result.duration_ms} ms)\n`
    : `failed at ${result.step}: ${result.error?.code}: ${result.error?.message}\n`

/** The body of `mds destinations add`, or the message saying what is missing. */
export const addRequestOf = (
  values: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>
): CreateDestinationRequest | string => {
  const flags: Record<string, string | undefined> = {}
  for (const flag of ["name", "endpoint", "bucket", "region", "prefix"]) {
    const value = values[flag]
    flags[flag] = typeof value === "string" ? value : undefined
  }
  const missing = ["name", "endpoint", "bucket"].filter((flag) => flags[flag] === undefined).map((flag) => `--${flag}`)
  const accessKeyId = env[ACCESS_KEY_ENV]
  const secret = env[SECRET_KEY_ENV]
  if (accessKeyId === undefined || accessKeyId === "") missing.push(ACCESS_KEY_ENV)
  if (secret === undefined || secret === "") missing.push(SECRET_KEY_ENV)
  if (missing.length > 0) return `destinations add needs ${missing.join(", ")}`
  return {
    name: flags["name"] ?? "",
    type: "s3",
    endpoint: flags["endpoint"] ?? "",
    bucket: flags["bucket"] ?? "",
    ...(flags["region"] === undefined ? {} : { region: flags["region"] }),
    ...(flags["prefix"] === undefined ? {} : { prefix: flags["prefix"] }),
    access_key_id: accessKeyId ?? "",
    secret_access_key: secret ?? ""
  }
}
