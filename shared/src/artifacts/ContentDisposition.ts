// The Content-Disposition header offering an artifact as a download under its file name (RFC 6266).

/** The plain name is for old clients; filename* carries the exact UTF-8 name. */
export const contentDisposition = (filename: string): string => {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}
