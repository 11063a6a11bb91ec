// One file or folder name made safe on every filesystem a destination may be (ext4, NTFS, SMB shares, S3 keys read
// back onto a disk): no separator, no character Windows refuses, no control character, no trailing dot or space, no
// reserved device name, no leading dot (a hidden file, or `..`), and at most a number of UTF-8 bytes.

/** Characters Windows and SMB refuse in a name, plus both separators; each becomes REPLACEMENT. */
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f\u007f]/gu
/** Device names Windows reserves whatever the extension (`CON`, `nul.txt`, `COM1.mp4`). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/iu
/** Unicode's bidirectional overrides and zero-width characters: a name that reads differently from what it is. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu

export const REPLACEMENT = "_"
/** What a name made only of refused characters, dots or spaces becomes. */
export const EMPTY_NAME = "_"

const encoder = new TextEncoder()

export const utf8Length = (text: string): number => encoder.encode(text).length

/** The longest prefix of `text`, cut between code points, whose UTF-8 form fits `maxBytes`. */
export const truncateUtf8 = (text: string, maxBytes: number): string => {
  if (utf8Length(text) <= maxBytes) return text
  let kept = ""
  let bytes = 0
  for (const codePoint of text) {
    const size = utf8Length(codePoint)
    if (bytes + size > maxBytes) break
    kept += codePoint
    bytes += size
  }
  return kept
}

const trimEnds = (name: string): string => name.replace(/^[\s.]+/u, "").replace(/[\s.]+$/u, "")

/** `CON` → `CON_`, `nul.txt` → `nul_.txt`: the part before the first dot is what Windows compares. */
const unreserve = (name: string): string => {
  const dot = name.indexOf(".")
  const base = dot === -1 ? name : name.slice(0, dot)
  return RESERVED.test(base) ? `${base}${REPLACEMENT}${name.slice(base.length)}` : name
}

/** A value's text with every refused character replaced; used on a field's value before it joins its segment. */
export const replaceForbidden = (text: string): string => text.normalize("NFC").replace(INVISIBLE, "").replace(FORBIDDEN, REPLACEMENT)

/**
 * A whole name made safe and cut to `maxBytes` (one byte is kept for the `_` a reserved name takes); never empty, never
 * `.`/`..`, never starting with a dot nor ending in a dot or a space.
 */
export const safeName = (text: string, maxBytes: number): string => {
  const cut = trimEnds(truncateUtf8(trimEnds(replaceForbidden(text)), maxBytes - 1))
  return cut === "" ? EMPTY_NAME : unreserve(cut)
}

/** Whether a name is one `safeName` could have produced (the property the tests check on any rendered path). */
export const isSafeName = (name: string, maxBytes: number): boolean =>
  name !== "" &&
  utf8Length(name) <= maxBytes &&
  !/[<>:"/\\|?*\u0000-\u001f\u007f]/u.test(name) &&
  !/^[\s.]/u.test(name) &&
  !/[\s.]$/u.test(name) &&
  !RESERVED.test(name.split(".")[0] ?? "")
