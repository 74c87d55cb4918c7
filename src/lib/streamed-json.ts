/**
 * An array whose elements come one at a time (rows read page by page, a workshop at a time):
 * written out as they come, never gathered in memory.
 */
export class StreamedArray<T = unknown> {
  constructor(readonly elements: () => AsyncIterable<T>) {}
}

const INDENT = '  ';

/** `value` as indented JSON, its lines after the first pushed right by `depth` levels. */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, INDENT).replaceAll('\n', `\n${INDENT.repeat(depth)}`);
}

/**
 * A JSON object, indented for people to read, as the chunks of text it is made of: its plain
 * members at once, a member that is a function as the value it resolves to, a `StreamedArray`
 * member element by element. Only the element being written is held in memory, and nothing is read
 * before the chunk that needs it is asked for.
 */
export async function* streamedJsonObject(members: Record<string, unknown>): AsyncGenerator<string> {
  const entries = Object.entries(members).filter(([, value]) => value !== undefined);
  yield '{';
  for (const [index, [key, value]] of entries.entries()) {
    yield `${index === 0 ? '' : ','}\n${INDENT}${JSON.stringify(key)}: `;
    if (!(value instanceof StreamedArray)) {
      yield indented(typeof value === 'function' ? await (value as () => Promise<unknown>)() : value, 1);
      continue;
    }
    let count = 0;
    for await (const element of value.elements()) {
      yield `${count === 0 ? '[' : ','}\n${INDENT.repeat(2)}${indented(element, 2)}`;
      count += 1;
    }
    yield count === 0 ? '[]' : `\n${INDENT}]`;
  }
  yield '\n}\n';
}
