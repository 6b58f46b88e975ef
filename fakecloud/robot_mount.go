package fakecloud

import "strings"

// robotPrefix is where the Robot webservice is mounted; the official
// CCM's tests use <base>/robot/server/{n}.
const robotPrefix = "/robot"

func robotPath(p string) bool { return p == robotPrefix || strings.HasPrefix(p, robotPrefix+"/") }
