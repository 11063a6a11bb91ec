// The oldest nats-server the services accept, and the check every service runs against the server it connects to.

/**
 * 2.12.0: the events of one decision are appended as one atomic batch (ADR-50, new in 2.12); the cluster behaviour the
 * services rely on (raising a stream's replicas in place, consumers re-created on a new leader) is verified only on the
 * pinned 2.14 (README).
 */
export const MIN_NATS_SERVER_VERSION = "2.12.0"

const parse = (version: string): ReadonlyArray<number> | null => {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim())
  return match === null ? null : [Number(match[1]), Number(match[2]), Number(match[3])]
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b` (pre-release tags ignored). */
export const compareServerVersions = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  for (let i = 0; i < 3; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}

/** Why the server cannot be used (a message for the operator), or null when it is recent enough. */
export const unsupportedServerVersion = (version: string | undefined, url: string): string | null => {
  const minimum = parse(MIN_NATS_SERVER_VERSION) ?? []
  const actual = version === undefined ? null : parse(version)
  if (actual === null)
    return `nats-server at ${url} did not report a version (got ${JSON.stringify(version)}); this service needs nats-server ${MIN_NATS_SERVER_VERSION} or newer`
  if (compareServerVersions(actual, minimum) >= 0) return null
  return `nats-server ${version} at ${url} is too old: this service needs nats-server ${MIN_NATS_SERVER_VERSION} or newer (tested on 2.14); upgrade the server (README, "NATS versions")`
}
