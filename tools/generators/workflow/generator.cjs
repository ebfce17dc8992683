// Scaffolds a workflow in the idiom of libs/saga/README.md: a definition as a table of rows next to
// its spec, the step idiom for commands, and a given/when/then spec that checks the derived table.
const { generateFiles, names } = require('@nx/devkit');
const path = require('node:path');

module.exports = async function workflowGenerator(tree, options) {
  const kebab = options.name.replace(/_/g, '-');
  const camel = names(kebab).propertyName;
  const pascal = names(kebab).className;
  const upper = options.name.toUpperCase();
  const target = path.join('apps/coordinator/src/workflows', kebab);
  if (tree.exists(target)) throw new Error(`${target} exists already`);
  generateFiles(tree, path.join(__dirname, 'files'), target, {
    tmpl: '',
    kebab,
    camel,
    pascal,
    upper,
    type: options.name,
    command: options.command ?? 'DoWork',
    service: options.service ?? 'research',
  });
};
