// Registers toHaveNoRetryViolations() and toHaveBackedOff() for every test file.
import { expect } from '@jest/globals'
import { petStoreMatchers } from 'petstore-mock/jest'

expect.extend(petStoreMatchers)
