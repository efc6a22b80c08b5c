// A malformed target is an error naming the attribute.
// RUN: lh-opt %s --lighthouse-cpu-select-strategy --verify-diagnostics

// expected-error @below {{lighthouse.target must be a dictionary of positive integers vector_bits, vector_registers, l2_bytes and threads}}
module attributes {lighthouse.target = {vector_bits = 512 : i64, threads = 0 : i64}} {
  func.func @empty() {
    return
  }
}
