import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';

/**
 * One scrape of `/metrics`, read by a Prometheus text-format parser (not prom-client's own code):
 * a line it cannot parse fails the test. The parser merges every series of a histogram into one
 * sample and drops their labels (its issue #13), so histograms are also read a second time as the
 * plain series they are made of (`_bucket`, `_sum`, `_count`), each with its own labels.
 */
export class Scrape {
  /** Every family as declared: name, help and type. */
  readonly families: Map<string, PrometheusFamily>;
  /** Every series by name, histograms' `_bucket`, `_sum` and `_count` included. */
  private readonly series: Map<string, PrometheusSample[]>;

  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    // Read that way, a histogram's series come in runs, one run per label set: gathered by name.
    const plain = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
    this.series = new Map();
    for (const { name, metrics } of parsePrometheusTextFormat(plain))
      this.series.set(name, [...(this.series.get(name) ?? []), ...metrics]);
  }

  family(name: string): PrometheusFamily {
    const family = this.families.get(name);
    if (!family) throw new Error(`no ${name} in the scrape; it has ${[...this.families.keys()].join(', ')}`);
    return family;
  }

  /** The samples of series `name` (a histogram's: `name_count`, …) whose labels include `labels`. */
  samples(name: string, labels: Record<string, string> = {}): PrometheusSample[] {
    return (this.series.get(name) ?? []).filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
    );
  }

  /** The value of the one sample of `name` matching `labels`; 0 when the series is not there yet. */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.samples(name, labels);
    if (found.length > 1)
      throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}: name more labels`);
    return found[0]?.value === undefined ? 0 : Number(found[0].value);
  }

  /** A histogram's observation count for `labels`. */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.value(`${name}_count`, labels);
  }

  /** A histogram's sum of observations for `labels`. */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.value(`${name}_sum`, labels);
  }

  /** A histogram's cumulative count of observations up to `le` for `labels`. */
  bucket(name: string, labels: Record<string, string>, le: string): number {
    return this.value(`${name}_bucket`, { ...labels, le });
  }

  /** Every label value of every sample, with its series (histogram bounds `le` left out). */
  labelValues(): Array<{ series: string; label: string; value: string }> {
    const found: Array<{ series: string; label: string; value: string }> = [];
    for (const [series, samples] of this.series) {
      for (const sample of samples) {
        for (const [label, value] of Object.entries(sample.labels ?? {}))
          if (label !== 'le') found.push({ series, label, value });
      }
    }
    return found;
  }
}

/** Reads `/metrics` at `baseUrl`; fails unless it answers 200 in the Prometheus text format. */
export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${text.slice(0, 300)}`);
  if (!res.headers.get('content-type')?.startsWith('text/plain; version=0.0.4'))
    throw new Error(`GET /metrics answered ${res.headers.get('content-type')}`);
  return new Scrape(text);
}
