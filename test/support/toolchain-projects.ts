/**
 * Small projects of each toolchain image, each with one passing test and no dependency to fetch:
 * what `test/toolchains.int-spec.ts` uploads. The Maven one uses only what Debian packages
 * (JUnit Jupiter 5.10.2, the default plugins), so it builds with no network.
 */
export interface ToolchainProject {
  name: string;
  /** The catalogue id its build file picks. */
  imageId: 'rust' | 'go' | 'java';
  buildFile: string;
  files: Record<string, string>;
  command: string;
  /** The permission rule that lets the command run unasked. */
  rule: string;
  /** What the test runner prints when the test passed. */
  passed: RegExp;
}

const rust: ToolchainProject = {
  name: 'a Rust crate',
  imageId: 'rust',
  buildFile: 'Cargo.toml',
  files: {
    'Cargo.toml': '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'src/lib.rs': [
      'pub fn add(a: i32, b: i32) -> i32 {',
      '    a + b',
      '}',
      '',
      '#[cfg(test)]',
      'mod tests {',
      '    #[test]',
      '    fn adds_two_numbers() {',
      '        assert_eq!(super::add(2, 3), 5);',
      '    }',
      '}',
      '',
    ].join('\n'),
  },
  command: 'cargo test',
  rule: 'Bash(cargo:*)',
  passed: /test tests::adds_two_numbers \.\.\. ok[\s\S]*test result: ok\. 1 passed/,
};

const go: ToolchainProject = {
  name: 'a Go module',
  imageId: 'go',
  buildFile: 'go.mod',
  files: {
    'go.mod': 'module example.com/adder\n\ngo 1.24\n',
    'adder.go': 'package adder\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n',
    'adder_test.go': [
      'package adder',
      '',
      'import "testing"',
      '',
      'func TestAddsTwoNumbers(t *testing.T) {',
      '\tif got := Add(2, 3); got != 5 {',
      '\t\tt.Fatalf("Add(2, 3) = %d, want 5", got)',
      '\t}',
      '}',
      '',
    ].join('\n'),
  },
  command: 'go test -v ./...',
  rule: 'Bash(go:*)',
  passed: /--- PASS: TestAddsTwoNumbers[\s\S]*\nok\s+example\.com\/adder/,
};

const java: ToolchainProject = {
  name: 'a Maven project with a JUnit test',
  imageId: 'java',
  buildFile: 'pom.xml',
  files: {
    'pom.xml': `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>adder</artifactId>
  <version>1.0.0</version>
  <properties>
    <maven.compiler.release>21</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
`,
    'src/main/java/com/example/Adder.java': 'package com.example;\n\npublic final class Adder {\n  public static int add(int a, int b) {\n    return a + b;\n  }\n}\n',
    'src/test/java/com/example/AdderTest.java': [
      'package com.example;',
      '',
      'import static org.junit.jupiter.api.Assertions.assertEquals;',
      '',
      'import org.junit.jupiter.api.Test;',
      '',
      'class AdderTest {',
      '  @Test',
      '  void addsTwoNumbers() {',
      '    assertEquals(5, Adder.add(2, 3));',
      '  }',
      '}',
      '',
    ].join('\n'),
  },
  command: 'mvn -B test',
  rule: 'Bash(mvn:*)',
  passed: /Tests run: 1, Failures: 0, Errors: 0, Skipped: 0[\s\S]*BUILD SUCCESS/,
};

export const TOOLCHAIN_PROJECTS: readonly ToolchainProject[] = [rust, go, java];
