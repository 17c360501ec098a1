// The server's optional packages (decisions/029), for the Docker image's runtime stage (Dockerfile): makes them
// dependencies of the project in the working folder, at the versions its package-lock.json holds, so that
// `npm prune --omit=dev` of the build stage's install keeps them (and what they need) and drops the rest.
//   node server-packages.mjs   (in the image's /app, beside package.json and package-lock.json)
import { readFileSync, writeFileSync } from 'node:fs'

const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
// The optional peers a user of the library does not get: the server's tools (not the test runners, not the types).
const names = Object.keys(pkg.peerDependenciesMeta ?? {}).filter(
  (name) => pkg.peerDependenciesMeta[name].optional && !['vitest', '@playwright/test'].includes(name) && !name.startsWith('@types/'),
)
for (const name of names) {
  const locked = lock.packages[`node_modules/${name}`]
  if (locked === undefined) {
    console.error(`server-packages: package-lock.json holds no ${name}: run npm install first.`)
    process.exit(1)
  }
  delete pkg.devDependencies?.[name]
  pkg.dependencies = { ...pkg.dependencies, [name]: locked.version }
}
writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`)
console.log(`server-packages: ${names.map((name) => `${name}@${pkg.dependencies[name]}`).join(', ')}`)
