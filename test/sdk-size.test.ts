import { describe, expect, it } from 'vitest';
import { measureSdkSizes } from '../bench/sdk-size';

describe('SDK size', () => {
  it('keeps each browser bundle within its budget (min+gzip)', async () => {
    const sizes = await measureSdkSizes();
    expect(sizes.map((size) => size.name)).toEqual([
      'REST (workshop-sdk)',
      'REST + live (workshop-sdk/live)',
      'canvas (workshop-sdk/canvas)',
      'REST + live + canvas',
    ]);
    for (const size of sizes) {
      if (size.budget !== null)
        expect(size.gzipped, `${size.name}: ${size.gzipped} bytes`).toBeLessThanOrEqual(size.budget);
    }
  });
});
