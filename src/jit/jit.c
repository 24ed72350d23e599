/* libmim-jit.so: `mim --run` (docs/cli.md). Compiles the `ll` back end's
 * LLVM IR in process with LLVM's ORC LLJIT (LLVM 14's C API) and calls the
 * program's main. Symbols the module does not define (printf, malloc, …)
 * resolve to those of this process, so the C library is callable. A module
 * of its own, opened only by runs with --run: ordinary runs neither load nor
 * link LLVM (start-up, docs/startup.md). */
#include "driver/native.h"

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>

#include <stdint.h>
#include <string.h>

/* Copies an LLVM error's message into msg and consumes the error. */
static bool fail(LLVMErrorRef e, const char *what, char *msg, size_t msg_size) {
    char *text = LLVMGetErrorMessage(e);
    snprintf(msg, msg_size, "%s: %s", what, text);
    LLVMDisposeErrorMessage(text);
    return false;
}

/* Parses the IR into a module of the thread-safe context's LLVM context. */
static LLVMModuleRef parse(LLVMOrcThreadSafeContextRef tsc, const char *ir, size_t len, char *msg,
                           size_t msg_size) {
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, len, "program.ll");
    LLVMModuleRef mod = NULL;
    char *text = NULL;
    if (LLVMParseIRInContext(LLVMOrcThreadSafeContextGetContext(tsc), buf, &mod, &text)) { /* takes buf */
        snprintf(msg, msg_size, "invalid LLVM IR: %s", text ? text : "");
        LLVMDisposeMessage(text);
        return NULL;
    }
    return mod;
}

/* The JIT with the process's symbols visible to the program. */
static LLVMOrcLLJITRef create_jit(char *msg, size_t msg_size) {
    LLVMOrcLLJITRef jit;
    LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit, NULL);
    if (e) {
        fail(e, "cannot create the JIT", msg, msg_size);
        return NULL;
    }
    LLVMOrcDefinitionGeneratorRef gen;
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
    if (e) {
        fail(e, "cannot make the process's symbols visible", msg, msg_size);
        LLVMOrcDisposeLLJIT(jit);
        return NULL;
    }
    LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
    return jit;
}

/* Adds the module (ownership passes to the JIT) and looks up main; *returns_int
 * tells whether main returns an integer (else it returns nothing: exit code 0). */
static bool find_main(LLVMOrcLLJITRef jit, LLVMOrcThreadSafeContextRef tsc, LLVMModuleRef mod,
                      LLVMOrcExecutorAddress *addr, bool *returns_int, char *msg, size_t msg_size) {
    LLVMValueRef main_fn = LLVMGetNamedFunction(mod, "main");
    LLVMTypeKind ret = main_fn ? LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(main_fn)))
                               : LLVMVoidTypeKind;
    if (!main_fn || LLVMIsDeclaration(main_fn) || (ret != LLVMVoidTypeKind && ret != LLVMIntegerTypeKind)) {
        LLVMDisposeModule(mod);
        snprintf(msg, msg_size, "the program has no external function 'main' to run%s",
                 main_fn ? " (its 'main' is only declared or does not return an integer)" : "");
        return false;
    }
    *returns_int = ret == LLVMIntegerTypeKind;
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), tsm);
    if (e) {
        LLVMOrcDisposeThreadSafeModule(tsm);
        return fail(e, "cannot add the program to the JIT", msg, msg_size);
    }
    e = LLVMOrcLLJITLookup(jit, addr, "main");
    return e ? fail(e, "cannot compile the program", msg, msg_size) : true;
}

__attribute__((visibility("default"))) bool mim_jit_run(const char *ir, size_t len, int argc, char **argv,
                                                         int *exit_code, char *msg, size_t msg_size) {
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        snprintf(msg, msg_size, "LLVM has no code generator for this machine");
        return false;
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMModuleRef mod = parse(tsc, ir, len, msg, msg_size);
    LLVMOrcLLJITRef jit = mod ? create_jit(msg, msg_size) : NULL;
    if (mod && !jit) LLVMDisposeModule(mod);
    LLVMOrcExecutorAddress addr = 0;
    bool returns_int = false;
    bool ok = jit && find_main(jit, tsc, mod, &addr, &returns_int, msg, msg_size);
    if (ok) {
        /* An address of code, as dlsym gives; int main(int, char **) or
         * void main(int, char **) (arguments main does not take are
         * ignored by the C calling convention). */
        uintptr_t a = (uintptr_t)addr;
        if (returns_int) {
            int (*entry)(int, char **);
            memcpy(&entry, &a, sizeof entry);
            *exit_code = entry(argc, argv);
        } else {
            void (*entry)(int, char **);
            memcpy(&entry, &a, sizeof entry);
            entry(argc, argv);
            *exit_code = 0;
        }
    }
    if (jit) LLVMOrcDisposeLLJIT(jit);
    LLVMOrcDisposeThreadSafeContext(tsc);
    return ok;
}
