// Masks API key secrets in any text (log lines, error messages): only the environment and a few characters remain.

/** A key, or a key-like fragment of any length, wherever it appears (in a path, a query, a JSON string). */
const SECRET_IN_TEXT = /svc_(live|test)_([0-9A-Za-z]{1,4})[0-9A-Za-z]*/g

/** "svc_live_Ab12…(40 chars)" -> "svc_live_Ab12****": enough to tell keys apart in a log, useless to an attacker. */
export const maskSecrets = (text: string): string => text.replace(SECRET_IN_TEXT, (_match, env: string, head: string) => `svc_${env}_${head}****`)
