// Masks credentials wherever they would appear in a log line: API keys, webhook secrets, link signatures.

const MASKS: ReadonlyArray<readonly [RegExp, (match: string, ...groups: Array<string>) => string]> = [
  // svc_live_AbCd... keeps its environment and first four characters (the display prefix the CLI shows).
  [/\b(svc_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]{36}\b/g, (_m, prefix) => `${prefix}…`],
  [/\b(whsec_)[0-9A-Za-z_-]{20,}/g, (_m, prefix) => `${prefix}…`],
  // Signed download links: the signature is the credential.
  [/([?&]signature=)[^&\s"]+/g, (_m, prefix) => `${prefix}…`],
  [/(bearer\s+)[^\s"]+/gi, (_m, prefix) => `${prefix}…`]
]

export const maskSecrets = (text: string): string =>
  MASKS.reduce((masked, [pattern, replace]) => masked.replace(pattern, replace as never), text)
