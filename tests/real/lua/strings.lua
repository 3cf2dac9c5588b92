-- strings.lua N — string building, patterns, formatting, packing, utf8.
local n = tonumber(arg[1]) or 1000
math.randomseed(42)

local words = {}
for i = 1, n do
  local len = 3 + i % 9
  local t = {}
  for j = 1, len do t[j] = string.char(97 + (i * 31 + j * 17) % 26) end
  words[i] = table.concat(t)
end
local text = table.concat(words, " ")
print("text", #text, text:sub(1, 40))

-- pattern matching and captures
local vowels = select(2, text:gsub("[aeiou]", ""))
local pairs_found = 0
for a, b in text:gmatch("(%a)(%a)%s") do if a < b then pairs_found = pairs_found + 1 end end
local upper = text:gsub("(%a+)", function(w) if #w > 8 then return w:upper() end end)
print("patterns", vowels, pairs_found, #upper, upper:find("%u%u%u+"))

-- find, rep, reverse, byte/char round trip
local hits, pos = 0, 1
while true do
  local s = text:find("ab", pos, true)
  if not s then break end
  hits, pos = hits + 1, s + 1
end
local r = ("xyz"):rep(n // 10, "-"):reverse()
local bytes = { text:byte(1, 200) }
print("search", hits, #r, r:sub(1, 12), string.char(table.unpack(bytes)) == text:sub(1, 200))

-- formatting numbers
local parts = {}
for i = 1, n // 5 do
  parts[#parts + 1] = string.format("%5d|%-8s|%08.3f|%x|%q", i, words[i], i / 7, i * 2654435761 % 4294967296, words[i])
end
local fmt = table.concat(parts, "\n")
print("format", #fmt, parts[#parts])

-- tostring/tonumber round trips, integer vs float
local s = 0
for i = 1, n do
  local f = i / 3
  s = s + tonumber(tostring(f)) * 3 + math.tointeger(tonumber(tostring(i)))
end
print("numbers", string.format("%.6f", s), math.type(1), math.type(1.0), 7 // 2, 7.0 // 2, 2^53)

-- string.pack / unpack
local packed = {}
for i = 1, n // 10 do packed[#packed + 1] = string.pack("<i4 d s1", i, i * 0.25, words[i]) end
local blob = table.concat(packed)
local off, total = 1, 0
while off <= #blob do
  local a, b, c
  a, b, c, off = string.unpack("<i4 d s1", blob, off)
  total = total + a + b + #c
end
print("pack", #blob, total)

-- utf8
local u = {}
for i = 1, n // 10 do u[#u + 1] = utf8.char(0x41 + i % 50, 0x3b1 + i % 20, 0x4e00 + i) end
local us = table.concat(u)
local cps = 0
for _, c in utf8.codes(us) do cps = cps + c % 1000 end
print("utf8", #us, utf8.len(us), cps)
