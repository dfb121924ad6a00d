// SPDX-License-Identifier: Apache-2.0
// Slots for the per-thread caches of a Context (kernel objects, scratch and pinned buffers, the last fallback), for
// threads that live for one call.
#pragma once

namespace clf {

// A slot of the process's pool, the lowest one free, held until it goes. A thread that works on it (WorkOnSlot) finds
// in each Context the caches the slot's last worker left there: the threads started for one call (share_out's lanes)
// reuse the buffers and kernels of the call before, where caches of their own would be new at every call (allocated
// and page-faulted again) and kept for good. Slots taken in the same order call after call come out the same.
class CacheSlot {
 public:
  CacheSlot();
  ~CacheSlot();
  CacheSlot(const CacheSlot&) = delete;
  CacheSlot& operator=(const CacheSlot&) = delete;
  int index() const { return index_; }

 private:
  int index_;
};

// While it lives, the calling thread's caches in every Context are those of `slot`, which no other thread may work
// on meanwhile.
class WorkOnSlot {
 public:
  explicit WorkOnSlot(const CacheSlot& slot);
  ~WorkOnSlot();
  WorkOnSlot(const WorkOnSlot&) = delete;
  WorkOnSlot& operator=(const WorkOnSlot&) = delete;

 private:
  int previous_;
};

}  // namespace clf
