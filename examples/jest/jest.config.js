// Native ESM: no transform, and node runs Jest with --experimental-vm-modules (see package.json).
export default {
  testEnvironment: 'node',
  transform: {},
  setupFilesAfterEnv: ['<rootDir>/jest.setup.js'],
}
