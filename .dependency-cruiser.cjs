// Import rules of vigil's code, checked by `npm test` (test/unit/shipped/layers.test.ts): no import
// circle (type-only imports included), and no import from a layer that a layer may not import (the
// layers and what each may import: layers.cjs); and the sources of generated files (dashboards/src,
// deploy/kubernetes/src) import nothing of their generators, so that imports between the top-level
// folders run one way.
const { LAYERS, SIMULATOR_LAYERS } = require('./layers.cjs');

const any = (paths) => `(${paths.join('|')})`;

/** For each layer, a rule forbidding imports from every other layer it does not name as allowed. */
function layerRules(layers) {
  return layers
    .map(([name, paths, , may]) => {
      const others = layers.filter(([other]) => other !== name && !may.includes(other));
      return {
        name: `layer-${name.replace('/', '-')}`,
        comment: `${name} may import only from itself${may.length ? ` and ${may.join(', ')}` : ''}`,
        severity: 'error',
        from: { path: any(paths) },
        to: { path: any(others.flatMap(([, p]) => p)) },
      };
    })
    .filter((rule) => rule.to.path !== '()');
}

/** The simulators' services do not import each other. */
const servicesApart = ['secrets', 'agent', 'teams', 'alerting'].map((s) => ({
  name: `simulator-${s}-apart`,
  comment: `the ${s} simulator imports no other simulator`,
  severity: 'error',
  from: { path: `^simulators/${s}/` },
  to: { path: `^simulators/(secrets|agent|teams|alerting)/`, pathNot: `^simulators/${s}/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle ties its files into one: break it by moving the shared piece down a layer',
      severity: 'error',
      from: { path: '^(src|simulators)/' },
      to: { circular: true },
    },
    {
      name: 'src-not-from-outside',
      comment: "vigil's code imports nothing of the tests, benches, scripts or simulators",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts|simulators|ui|dashboards|deploy)/' },
    },
    {
      name: 'generated-sources-not-from-tooling',
      comment:
        'the sources of generated files take what the generator knows as parameters: they import nothing of the scripts that generate them, the tests or the benches',
      severity: 'error',
      from: { path: '^(dashboards|deploy)/' },
      to: { path: '^(scripts|test|bench)/' },
    },
    {
      name: 'generic-names-no-upstream',
      comment:
        "what runs every upstream's jobs names none of them: the engine, the check and the generic pieces of src/collectors/ reach an upstream's folder only through the lists that gather them (src/collectors/index.ts, decoding.ts)",
      severity: 'error',
      from: { path: '^src/(engine|check|jobs|upstream)/|^src/collectors/[^/]+\\.ts$', pathNot: '^src/collectors/(index|decoding)\\.ts$' },
      to: { path: '^src/collectors/[^/]+/' },
    },
    {
      name: 'unlayered-file',
      comment: 'every file of src/ belongs to a layer: add its path to LAYERS in layers.cjs',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: any(LAYERS.flatMap(([, p]) => p)) },
    },
    ...layerRules(LAYERS),
    ...layerRules(SIMULATOR_LAYERS),
    ...servicesApart,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|simulators|dashboards|deploy|scripts|test|bench)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
