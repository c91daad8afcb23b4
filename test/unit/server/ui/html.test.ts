import { describe, expect, it } from 'vitest';
import { ago, esc, labelList, page, safeLink, when } from '../../../../src/server/ui/html.js';

/** The one escaping helper and the page shell: what an attacker-controlled label value can do to a page. */

describe('esc', () => {
  it('turns a script tag into text', () => {
    expect(esc('<script>alert(1)</script>')).toBe('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('escapes both quote kinds, so a value cannot leave an attribute', () => {
    const attr = `<a title="${esc(`x" onmouseover="alert(1)`)}" data-y='${esc(`' onfocus='alert(2)`)}'>`;
    expect(attr).toBe(`<a title="x&#34; onmouseover=&#34;alert(1)" data-y='&#39; onfocus=&#39;alert(2)'>`);
    expect(attr.match(/"/g)).toHaveLength(2);
    expect(attr.match(/'/g)).toHaveLength(2);
  });

  it('escapes an ampersand first (no double decoding into markup)', () => {
    expect(esc('&lt;b&gt;')).toBe('&#38;lt;b&#38;gt;');
  });

  it('shows null and undefined as nothing, numbers as text', () => {
    expect(esc(undefined)).toBe('');
    expect(esc(null)).toBe('');
    expect(esc(42)).toBe('42');
  });
});

describe('labelList', () => {
  it('escapes names and values and leaves skipped labels out', () => {
    const html = labelList({ alertname: 'A', instance: '<img src=x onerror=alert(1)>' }, ['alertname']);
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toContain('alertname');
  });
});

describe('safeLink', () => {
  it('links http(s) URLs, escaped', () => {
    expect(safeLink('https://runbooks.example/a?b=1&c="2"', 'runbook')).toBe(
      '<a href="https://runbooks.example/a?b=1&#38;c=&#34;2&#34;" rel="noreferrer noopener">runbook</a>',
    );
  });

  it('drops javascript: and data: URLs', () => {
    expect(safeLink('javascript:alert(1)', 'x')).toBe('');
    expect(safeLink(' JavaScript:alert(1)', 'x')).toBe('');
    expect(safeLink('data:text/html,<script>', 'x')).toBe('');
    expect(safeLink(undefined, 'x')).toBe('');
  });
});

describe('times', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it('says how long ago in units a reader takes in at a glance', () => {
    expect([ago(5), ago(89), ago(90), ago(3600), ago(2 * 86400)]).toEqual(['5 s', '89 s', '2 min', '60 min', '2.0 d']);
  });

  it('shows a time relative and absolute in UTC, and local when the reader has a zone', () => {
    expect(when('2026-11-23T09:57:00Z', { now })).toBe(
      '<time datetime="2026-11-23T09:57:00Z" title="2026-11-23 09:57:00 UTC">3 min ago<span class="abs"> · 2026-11-23 09:57:00 UTC</span></time>',
    );
    expect(when('2026-11-23T09:57:00Z', { now, local: () => '23/11 10:57' })).toContain(' · 23/11 10:57 local');
    expect(when(null, { now })).toContain('never');
  });

  it('shows an unparsable time as escaped text', () => {
    expect(when('<b>', { now })).toBe('&#60;b&#62;');
  });
});

describe('page', () => {
  const html = page({ title: '<x>', view: 'estate', nav: 'estate', version: '1', api: '/api/v1/estate', body: '<p>b</p>' });

  it('loads one external script and stylesheet of vigil and has no inline script or style', () => {
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('<script type="module" src="ui/app.js"></script>');
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('escapes the title and marks the current view', () => {
    expect(html).toContain('<title>&#60;x&#62; · vigil</title>');
    expect(html).toContain('<a href="./" aria-current="page">Estate</a>');
  });

  it('makes every link relative to one base: the root, or the path users reach vigil under', () => {
    expect(html).toContain('<base href="/">');
    const proxied = page({ title: 't', view: 'estate', nav: 'estate', version: '1', api: 'api/v1/estate', body: '', base: '/vigil/' });
    expect(proxied).toContain('<base href="/vigil/">');
    // No absolute path is left to escape the base.
    expect(proxied.replace('<base href="/vigil/">', '')).not.toMatch(/(href|src|action|data-api)="\//);
  });
});
