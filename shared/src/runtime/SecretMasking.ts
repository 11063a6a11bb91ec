// Masks credentials wherever they would appear in a log line: API keys, webhook secrets, link signatures.

/** One character of a key as it may reach a log: itself or percent-encoded (a client can encode any character). */
const keyChar = (c: string) => `(?:${c}|%${c.charCodeAt(0).toString(16)})`
const KEY_BODY_CHAR = "(?:[0-9a-z]|%[0-9a-f]{2})"
const KEY_PREFIX = `${[..."svc_"].map(keyChar).join("")}(?:${[..."live"].map(keyChar).join("")}|${[..."test"].map(keyChar).join("")})${keyChar("_")}`

const MASKS: ReadonlyArray<readonly [RegExp, (match: string, ...groups: Array<string>) => string]> = [
  // svc_live_AbCd... keeps its environment and first four characters (the display prefix the CLI shows). No word
  // boundaries: "_" is a word character, so a key glued into job_svc_live_… or …_x would slip past \b.
  [new RegExp(`(${KEY_PREFIX}${KEY_BODY_CHAR}{4})${KEY_BODY_CHAR}{36}`, "gi"), (_m, prefix) => `${prefix}…`],
  [/\b(whsec_)[0-9A-Za-z_-]{20,}/g, (_m, prefix) => `${prefix}…`],
  // Signed download links: the signature is the credential.
  [/([?&]signature=)[^&\s"]+/g, (_m, prefix) => `${prefix}…`],
  [/(bearer\s+)[^\s"]+/gi, (_m, prefix) => `${prefix}…`]
]

export const maskSecrets = (text: string): string =>
  MASKS.reduce((masked, [pattern, replace]) => masked.replace(pattern, replace as never), text)
