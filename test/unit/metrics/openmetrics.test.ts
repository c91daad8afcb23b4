import { describe, expect, it } from 'vitest';
import { negotiateFormat } from '../../../src/server/negotiate.js';
import { toOpenMetrics } from '../../../src/metrics/openmetrics.js';

describe('toOpenMetrics', () => {
  it('names a counter family without _total, keeps its samples, declares units, escapes quotes in HELP', () => {
    const classic = [
      '# HELP x_seconds_total Time "spent", in seconds\\n ok.',
      '# TYPE x_seconds_total counter',
      'x_seconds_total{a="1"} 2',
      '',
      '# HELP y_bytes Size.',
      '# TYPE y_bytes gauge',
      'y_bytes 3',
      '# HELP z_total A gauge named like a counter keeps its name.',
      '# TYPE z_total gauge',
      'z_total 1',
      '',
    ].join('\n');
    expect(toOpenMetrics(classic)).toBe(
      [
        '# HELP x_seconds Time \\"spent\\", in seconds\\n ok.',
        '# TYPE x_seconds counter',
        '# UNIT x_seconds seconds',
        'x_seconds_total{a="1"} 2',
        '# HELP y_bytes Size.',
        '# TYPE y_bytes gauge',
        '# UNIT y_bytes bytes',
        'y_bytes 3',
        '# HELP z_total A gauge named like a counter keeps its name.',
        '# TYPE z_total gauge',
        'z_total 1',
        '',
      ].join('\n'),
    );
  });
});

describe('negotiateFormat', () => {
  it.each([
    [undefined, 'text'],
    ['*/*', 'text'],
    ['text/plain;version=0.0.4', 'text'],
    ['application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text; version=0.0.1', 'text'],
    ['application/openmetrics-text;q=0.2,text/plain;q=0.9', 'text'],
    ['application/openmetrics-text;q=0', 'text'],
  ] as const)('%s → %s', (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format);
  });
});
