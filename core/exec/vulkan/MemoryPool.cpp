// MemoryPool.cpp - blocks of device memory shared by small buffers (see MemoryPool.h).
#include "core/exec/vulkan/MemoryPool.h"

#include <algorithm>

namespace shardx::exec::vk {

MemoryPool::~MemoryPool()
{
    for (const std::unique_ptr<Block>& b : m_blocks)
        if (b)
            m_fn->vkFreeMemory(m_device, b->memory, nullptr);
}

size_t MemoryPool::allocations() const
{
    return m_dedicated + size_t(std::count_if(m_blocks.begin(), m_blocks.end(),
                                              [](const std::unique_ptr<Block>& b) { return b != nullptr; }));
}

Expected<VkDeviceMemory> MemoryPool::allocateMemory(uint32_t type, uint64_t size, bool map, void** mapped,
                                                    const std::string& what)
{
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = size;
    alloc.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkResult r = m_fn->vkAllocateMemory(m_device, &alloc, nullptr, &memory);
    if (r != VK_SUCCESS)
        return vkError("vkAllocateMemory (" + what + ")", r);
    *mapped = nullptr;
    if (map) {
        r = m_fn->vkMapMemory(m_device, memory, 0, VK_WHOLE_SIZE, 0, mapped);
        if (r != VK_SUCCESS) {
            m_fn->vkFreeMemory(m_device, memory, nullptr);
            return vkError("vkMapMemory (" + what + ")", r);
        }
    }
    return memory;
}

bool MemoryPool::carve(Block& block, uint64_t size, uint64_t alignment, uint64_t* offset)
{
    for (auto it = block.free.begin(); it != block.free.end(); ++it) {
        const uint64_t start = it->first, bytes = it->second;
        const uint64_t aligned = (start + alignment - 1) / alignment * alignment;
        if (aligned + size > start + bytes)
            continue;
        block.free.erase(it);
        if (aligned > start)
            block.free.emplace(start, aligned - start);
        if (aligned + size < start + bytes)
            block.free.emplace(aligned + size, start + bytes - aligned - size);
        *offset = aligned;
        ++block.ranges;
        return true;
    }
    return false;
}

Expected<MemoryRange> MemoryPool::allocate(uint32_t type, uint64_t size, uint64_t alignment, bool map,
                                           const std::string& what)
{
    alignment = std::max<uint64_t>(alignment, 1);
    MemoryRange range;
    range.size = size;
    if (size > kPooledBytes) {
        auto memory = allocateMemory(type, size, map, &range.mapped, what);
        if (!memory)
            return memory.error();
        range.memory = *memory;
        ++m_dedicated;
        return range;
    }
    int free = -1;
    for (size_t i = 0; i < m_blocks.size(); ++i) {
        Block* b = m_blocks[i].get();
        if (!b) {
            free = free < 0 ? int(i) : free;
            continue;
        }
        if (b->type != type || (map && !b->mapped))
            continue;
        if (carve(*b, size, alignment, &range.offset)) {
            range.memory = b->memory;
            range.mapped = b->mapped ? static_cast<char*>(b->mapped) + range.offset : nullptr;
            range.block = int(i);
            return range;
        }
    }
    auto block = std::make_unique<Block>();
    auto memory = allocateMemory(type, kBlockBytes, map, &block->mapped, what);
    if (!memory)
        return memory.error();
    block->memory = *memory;
    block->type = type;
    block->size = kBlockBytes;
    block->free.emplace(0, kBlockBytes);
    carve(*block, size, alignment, &range.offset); // a fresh block holds any pooled size
    range.memory = block->memory;
    range.mapped = block->mapped ? static_cast<char*>(block->mapped) + range.offset : nullptr;
    if (free < 0) {
        free = int(m_blocks.size());
        m_blocks.push_back(nullptr);
    }
    range.block = free;
    m_blocks[size_t(free)] = std::move(block);
    return range;
}

void MemoryPool::release(const MemoryRange& range)
{
    if (range.block < 0) {
        m_fn->vkFreeMemory(m_device, range.memory, nullptr);
        --m_dedicated;
        return;
    }
    Block& b = *m_blocks[size_t(range.block)];
    // Back into the free list, merged with the free ranges on either side.
    uint64_t start = range.offset, end = range.offset + range.size;
    auto next = b.free.lower_bound(start);
    if (next != b.free.end() && next->first == end) {
        end += next->second;
        next = b.free.erase(next);
    }
    if (next != b.free.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            start = prev->first;
            b.free.erase(prev);
        }
    }
    b.free.emplace(start, end - start);
    --b.ranges;
    if (b.ranges > 0)
        return;
    const bool another = std::any_of(m_blocks.begin(), m_blocks.end(), [&](const std::unique_ptr<Block>& o) {
        return o && o.get() != &b && o->type == b.type && (o->mapped != nullptr) == (b.mapped != nullptr);
    });
    if (another) {
        m_fn->vkFreeMemory(m_device, b.memory, nullptr);
        m_blocks[size_t(range.block)].reset();
    }
}

} // namespace shardx::exec::vk
