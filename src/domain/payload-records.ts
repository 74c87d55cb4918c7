/**
 * `payload` with the objects in it that `replace` gives a copy for replaced by that copy, at any
 * depth (the copy's own members walked in turn). What holds no replaced object comes back as the
 * same value, so a caller can tell by identity whether anything changed. Used to rewrite what a
 * payload says of people for a reader (hidden authors, deleted accounts).
 */
export function replaceRecords<T>(
  payload: T,
  replace: (record: Record<string, unknown>) => Record<string, unknown> | null,
): T {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      const mapped = value.map(walk);
      return mapped.some((item, i) => item !== value[i]) ? mapped : value;
    }
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    let copy = replace(record);
    for (const [key, member] of Object.entries(copy ?? record)) {
      const walked = walk(member);
      if (walked !== member) (copy ??= { ...record })[key] = walked;
    }
    return copy ?? value;
  };
  return walk(payload) as T;
}
